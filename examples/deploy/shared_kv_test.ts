// One KV file, Deno and Node side by side (shared_kv.ts): records written
// by Deno (Deno 2.9's V8 serialization format 16, which Node 20's own
// reader refuses) are read on Node through npm:@deno/kv, written back by
// Node, and read again on Deno unchanged. Needs node and
// _tools/runtimes/node_modules; skipped with a notice without node,
// unless CI or TOOLKIT_REQUIRE_ALL is set.
import assert from "node:assert/strict";
import { join } from "node:path";
import { bundleProgram, ROOT } from "../../_tools/runtimes/bundle.ts";
import { missingProgram, nodeModulesReady } from "./_test_restart.ts";

const skip = await missingProgram(["node"], "the shared KV file test") !==
    undefined || !await nodeModulesReady("the shared KV file test");

// The shapes the auth app keeps in KV: records with strings, numbers,
// dates, nested bytes and big integers; bare bytes; a counter.
const RECORDS: [string, unknown][] = [
  ["user", {
    id: "01J0000000000000000000000",
    email: "ada@example.com",
    name: "Ada Lovelace ✓",
    passwordHash:
      "$2b$04$YCkjcjPNNmlQxImeNmUO7.1thfOwAQLJ3tOkEgGO2NWT0gBIHpQxO",
    createdAt: new Date(1_700_000_000_000),
    roles: ["admin", "user"],
    verified: true,
    avatar: null,
  }],
  ["passkey", {
    credentialId: new Uint8Array([1, 2, 3, 250]),
    publicKey: new Uint8Array(300).fill(7),
    counter: 12,
    transports: ["internal"],
  }],
  ["bytes", new Uint8Array([0, 255, 16])],
  ["number", 42.5],
  ["bigint", 2n ** 70n],
  ["map", new Map<string, unknown>([["a", 1], ["b", new Set([1, 2])]])],
];

Deno.test({
  name:
    "shared KV file: what Deno writes, Node reads and writes back, and Deno reads it unchanged",
  ignore: skip,
  async fn() {
    const script = await bundleProgram(
      join(ROOT, "examples/deploy/testdata/kv_copy.ts"),
      "deploy_kv_copy",
    );
    const dir = await Deno.makeTempDir({ prefix: "shared-kv-" });
    try {
      const path = join(dir, "users.kv");
      const kv = await Deno.openKv(path);
      for (const [name, value] of RECORDS) {
        await kv.set(["original", name], value);
      }
      await kv.atomic().sum(["original", "counter"], 3n).commit();
      kv.close();

      const { code, stdout, stderr } = await new Deno.Command("node", {
        args: [script, path],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(stdout);
      assert.equal(code, 0, new TextDecoder().decode(stderr));
      assert.equal(out.trim(), `copied ${RECORDS.length + 1}`);

      const again = await Deno.openKv(path);
      try {
        for (const [name, value] of RECORDS) {
          const copy = await again.get(["copy", name]);
          assert.deepEqual(copy.value, value, name);
        }
        const counter = await again.get<Deno.KvU64>(["copy", "counter"]);
        assert.ok(counter.value instanceof Deno.KvU64);
        assert.equal(counter.value.value, 3n);
      } finally {
        again.close();
      }
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
