/**
 * `utf8Length` (the logger's `%contentLength` of a string body) as it is
 * (the runtime's `Buffer.byteLength` above 64 characters) against the
 * regex scan for the first non-ASCII unit it was, on a short form body and
 * a 4 KB page, ASCII and not. Interleaved CPU-time rounds; ns per call.
 *
 * ```sh
 * deno run -A bench/page/run.ts utf8_length.ts [--rounds=11]
 * ```
 *
 * @module
 */
import { utf8Length } from "../../response/body_size.ts";
import { argsOf, rounds } from "./_measure.ts";

// What utf8Length was before (response/body_size.ts at 1cc06a9).
const NON_ASCII = /[\u0080-\uffff]/;
function before(text: string): number {
  const first = text.search(NON_ASCII);
  if (first === -1) return text.length;
  let bytes = text.length;
  for (let i = first; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    bytes += code < 0x800 ? 1 : 2;
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return bytes;
}

const CASES: Record<string, string> = {
  "short, ASCII": "text=hello+world&n=1",
  "short, accents": "héllo wörld €",
  "4 KB page, ASCII": "<tr><td>&lt;Item&gt; &amp; x</td></tr>\n".repeat(110),
  "4 KB page, accents": "<tr><td>&lt;Item&gt; &amp; é</td></tr>\n".repeat(110),
};

const count = Number(argsOf().get("rounds") ?? 11);
for (const [name, text] of Object.entries(CASES)) {
  if (utf8Length(text) !== before(text)) throw new Error(name);
  const per = text.length > 100 ? 20_000 : 500_000;
  let sink = 0;
  console.log(`${name} (${text.length} characters), ns per call`);
  const contender = (label: string, count: (text: string) => number) => ({
    name: label,
    run: () => {
      for (let i = 0; i < per; i++) sink += count(text);
    },
  });
  const samples = await rounds([
    contender("before (regex scan)", before),
    contender("utf8Length now", utf8Length),
  ], {
    rounds: count,
    warm: 3,
    per: per / 1000,
    against: "before (regex scan)",
    unit: "ns",
  });
  if (sink === 0 || samples.size !== 2) throw new Error("nothing counted");
}
