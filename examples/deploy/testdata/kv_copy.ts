// Run on Node by shared_kv_test.ts (bundled): opens the KV file given as
// the first argument with openSharedKv(), copies every entry under
// ["copy", ...key] (read as Node reads it, written as Node writes it), and
// prints how many it copied.
import process from "node:process";
import { openSharedKv } from "../shared_kv.ts";

const kv = await openSharedKv(process.argv[2]!);
let copied = 0;
for await (const entry of kv.list({ prefix: ["original"] })) {
  await kv.set(["copy", ...entry.key.slice(1)], entry.value);
  copied++;
}
kv.close();
console.log(`copied ${copied}`);
