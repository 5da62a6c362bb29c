/**
 * `escapeHtml` as it is (a native scan for the first special character,
 * then a char-code loop with slices that hands long plain runs back to the
 * native scan) against the `String.replace` with a
 * callback it was, and Hono's `escapeToBuffer` (the same technique, into a
 * one-element buffer), on short and long texts with and without special
 * characters. Interleaved CPU-time rounds; µs per call.
 *
 * ```sh
 * deno run -A bench/page/run.ts escape.ts [--rounds=15]
 * ```
 *
 * @module
 */
import { escapeToBuffer } from "hono/utils/html";
import { escapeHtml } from "../../html/_safe.ts";
import { argsOf, rounds } from "./_measure.ts";

// What escapeHtml was before (html/_safe.ts at 1cc06a9).
const NEEDS_ESCAPE = /[&<>"']/;
const ESCAPABLE = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
function entity(char: string): string {
  return ENTITIES[char];
}
function escapeBefore(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPABLE, entity) : text;
}
function escapeHono(text: string): string {
  const buffer: [string] = [""];
  escapeToBuffer(text, buffer);
  return buffer[0];
}

const prose =
  "The quick brown fox jumps over the lazy dog while the committee, having met twice, ";
const CASES: Record<string, string> = {
  "short, plain": "Ada Lovelace",
  "short, specials": `<Item 7> & "friends"`,
  "long, plain": prose.repeat(25), // 2 KB
  "long, few specials": prose.repeat(12) + `a <b>bold</b> "quote"` +
    prose.repeat(12),
  "long, many specials": `O'Brien's <b>note</b> & "more" `.repeat(64),
};

const options = argsOf();
const count = Number(options.get("rounds") ?? 15);
for (const [name, text] of Object.entries(CASES)) {
  if (escapeHtml(text) !== escapeBefore(text)) throw new Error(name);
  if (escapeHono(text) !== escapeBefore(text)) throw new Error(name);
  const per = text.length > 100 ? 20_000 : 200_000;
  let sink = 0;
  console.log(`${name} (${text.length} characters)`);
  const contender = (label: string, escape: (text: string) => string) => ({
    name: label,
    run: () => {
      for (let i = 0; i < per; i++) sink += escape(text).length;
    },
  });
  await rounds([
    contender("before (replace + callback)", escapeBefore),
    contender("escapeHtml now", escapeHtml),
    contender("Hono escapeToBuffer", escapeHono),
  ], { rounds: count, warm: 3, per, against: "before (replace + callback)" });
  if (sink === 0) throw new Error("nothing escaped");
}
