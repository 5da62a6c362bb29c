// Runs every block of docs/exports.md as a user would (main.ts in a project
// of its own, `deno run --unstable-kv --allow-all main.ts`) and checks that
// it prints, line by line, what its `// →` comments say (`a | b` for a line
// printed twice by a loop). The Redis block gets a throwaway redis-server.

import assert from "node:assert/strict";
import { codeBlocks, makeProject } from "../_tools/doc_run.ts";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";

const blocks = await codeBlocks("docs/exports.md");
const redisServer = await redisServerOrSkip();

function expectations(code: string): string[] {
  return code.split("\n").flatMap((line) => {
    const at = line.indexOf("// → ");
    return at === -1 ? [] : line.slice(at + 5).split(" | ");
  });
}

Deno.test("docs/exports.md has a snippet for every export of deno.json", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  );
  const text = await Deno.readTextFile(
    new URL("./exports.md", import.meta.url),
  );
  for (const subpath of Object.keys(config.exports)) {
    const name = `${config.name}${subpath.slice(1)}`;
    assert.ok(text.includes(`\`${name}\``), `no section for ${name}`);
    assert.ok(text.includes(`from "${name}"`), `no import of ${name}`);
  }
});

for (const { heading, code } of blocks) {
  const needsRedis = code.includes('from "redis"');
  Deno.test({
    name: `docs/exports.md runs: ${heading}`,
    ignore: needsRedis && redisServer === undefined,
    async fn() {
      const expected = expectations(code);
      assert.ok(expected.length > 0, "a snippet must say what it prints");
      const project = await makeProject();
      const redis = needsRedis ? await startRedis(redisServer!) : undefined;
      try {
        await Deno.writeTextFile(`${project.dir}/main.ts`, code);
        const { code: exit, stdout, stderr } = await new Deno.Command(
          Deno.execPath(),
          {
            args: ["run", "--unstable-kv", "--allow-all", "main.ts"],
            cwd: project.dir,
            env: { NO_COLOR: "1", ...(redis ? { REDIS_URL: redis.url } : {}) },
            stdout: "piped",
            stderr: "piped",
          },
        ).output();
        const out = new TextDecoder().decode(stdout);
        assert.equal(exit, 0, new TextDecoder().decode(stderr));
        assert.deepEqual(out.trimEnd().split("\n"), expected);
      } finally {
        await redis?.stop();
        await project.remove();
      }
    },
  });
}
