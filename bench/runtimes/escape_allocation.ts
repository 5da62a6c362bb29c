/**
 * The signed-in page's 60 escapes (30 rows of a name and a note, 5-6
 * characters to escape in each) and the page around them, rendered with
 * `escapeHtml` (`a`: the appending loop of `html/_safe.ts`) or with one
 * `String.prototype.replace` and a callback (`b`: the way Fastify's page
 * escapes), for counting in process what each allocates and executes:
 *
 * ```sh
 * # bytes a page of the escapes alone (a young generation too large to collect)
 * deno run --v8-flags=--min-semi-space-size=256,--max-semi-space-size=256 bench/runtimes/escape_allocation.ts a bytes
 * # instructions, misses and mispredicts a page: the difference of 3,000 and 1,000 pages under callgrind
 * valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes --I1=32768,8,64 --D1=32768,8,64 \
 *   --LL=33554432,16,64 --smc-check=all-non-file --callgrind-out-file=<out> \
 *   deno run --v8-flags=--single-threaded bench/runtimes/escape_allocation.ts a 3000
 * ```
 *
 * @module
 */
import { escapeHtml } from "../../html/_safe.ts";

const ROWS = Array.from({ length: 30 }, (_, i) => ({
  id: i + 1,
  name: `<Item ${i + 1}> & "friends"`,
  note: `O'Brien's <b>note</b> #${i + 1}`,
}));
const SPECIAL = /[&<>"']/g;
const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};
const entity = (char: string) => ENTITIES[char]!;

/** One `replace` with a callback, after the same test for nothing to do. */
function escapeByReplace(text: string): string {
  SPECIAL.lastIndex = 0;
  if (!SPECIAL.test(text)) return text;
  return text.replace(SPECIAL, entity);
}

function page(escape: (text: string) => string, visits: number): string {
  let rows = "";
  for (const row of ROWS) {
    rows += "<tr><td>" + row.id + "</td><td>" + escape(row.name) +
      "</td><td>" + escape(row.note) + "</td></tr>";
  }
  return `<!doctype html><html><body><h1>Hello, ${
    escape("ada")
  }</h1><p>Visit ${visits}</p><table>${rows}</table></body></html>`;
}

const escape = Deno.args[0] === "b" ? escapeByReplace : escapeHtml;
if (page(escape, 1) !== page(escapeHtml, 1)) {
  throw new Error("not the same page");
}
let sink = 0;
const encoder = new TextEncoder();
// Warm: the escapes compiled by the optimising tier.
for (let i = 0; i < 3000; i++) sink += page(escape, i).length;
if (Deno.args[1] === "bytes") {
  const before = Deno.memoryUsage().heapUsed;
  for (let i = 0; i < 1000; i++) {
    for (const row of ROWS) {
      sink += escape(row.name).length + escape(row.note).length;
    }
  }
  const after = Deno.memoryUsage().heapUsed;
  console.log(
    `bytes a page, the 60 escapes: ${Math.round((after - before) / 1000)}`,
  );
} else {
  const pages = Number(Deno.args[1] ?? 1000);
  for (let i = 0; i < pages; i++) {
    sink += encoder.encode(page(escape, i)).length;
  }
}
if (sink === 0) throw new Error("nothing rendered");
