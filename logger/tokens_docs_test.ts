// The logger's tokens are defined once, in `TOKENS` (`_format.ts`); the option
// docs of `logger()` (mod.ts) and the guide's Logger section list them. This
// test keeps the three in agreement, and the guide naming every option.
import assert from "node:assert/strict";
import { tokenNames } from "./_format.ts";

const read = (path: string) =>
  Deno.readTextFile(new URL(path, import.meta.url));

Deno.test("logger tokens: mod.ts's table and the guide list exactly the tokens TOKENS defines", async () => {
  const defined = [...tokenNames].sort();
  const mod = await read("./mod.ts");
  const table = [...mod.matchAll(/^\s*\* \| `%(\w+)` \|/gm)].map((m) => m[1])
    .sort();
  assert.deepEqual(table, defined, "logger/mod.ts's token table");
  const guide = await read("../docs/guide.md");
  const section = /^## Logger\n([\s\S]*?)^## /m.exec(guide)?.[1] ?? "";
  const listed = /Tokens: ([\s\S]*?)\.\n/.exec(section)?.[1] ?? "";
  const named = [...new Set([...listed.matchAll(/`%(\w+)`/g)].map((m) => m[1]))]
    .sort();
  assert.deepEqual(named, defined, "docs/guide.md's Logger token list");
});

Deno.test("logger options: the guide's Logger section names every option", async () => {
  const mod = await read("./mod.ts");
  const body = /export interface LoggerOptions \{([\s\S]*?)\n\}/.exec(mod)?.[1];
  assert.ok(body, "LoggerOptions in logger/mod.ts");
  const options = [...body.matchAll(/^ {2}(\w+)\?:/gm)].map((m) => m[1]);
  assert.ok(options.length >= 4, options.join(", "));
  const guide = await read("../docs/guide.md");
  const section = /^## Logger\n([\s\S]*?)^## /m.exec(guide)?.[1] ?? "";
  for (const option of options) {
    assert.match(section, new RegExp(`\`${option}\``), `guide lacks ${option}`);
  }
});
