// The permission sets of deno.json: each is described in the README's
// "Permissions" table, each documented run command of an example uses one,
// and the auth set lists every variable the auth app reads.
import assert from "node:assert/strict";

const REPO = new URL("../", import.meta.url).pathname;
const config = JSON.parse(await Deno.readTextFile(`${REPO}deno.json`));
const sets: Record<string, Record<string, unknown>> = config.permissions;

function permissionTable(readme: string): string[] {
  const section = readme.split("### Permissions")[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^\| `([a-z-]+)`/gm)].map((match) => match[1]);
}

Deno.test("permissions: every set in deno.json has a row in the README's table, and no row names a missing set", async () => {
  const rows = permissionTable(await Deno.readTextFile(`${REPO}README.md`));
  assert.deepEqual([...rows].sort(), Object.keys(sets).sort());
});

Deno.test("permissions: the dev task runs the auth app with -P=auth and a short line", () => {
  const dev: string = config.tasks.dev;
  assert.match(dev, / -P=auth /);
  assert.ok(dev.length < 120, `the dev task is ${dev.length} characters`);
});

Deno.test("permissions: each example README's deno run line of its main.ts uses a permission set", async () => {
  for await (const entry of Deno.readDir(`${REPO}examples`)) {
    if (!entry.isDirectory) continue;
    let readme: string;
    try {
      readme = await Deno.readTextFile(
        `${REPO}examples/${entry.name}/README.md`,
      );
    } catch {
      continue;
    }
    const lines = readme.split("\n").filter((line) =>
      /\bdeno run\b/.test(line) &&
      line.includes(`examples/${entry.name}/main.ts`)
    );
    for (const line of lines) {
      const set = /-P=([a-z-]+)/.exec(line)?.[1];
      assert.ok(set, `examples/${entry.name}/README.md: ${line}`);
      assert.ok(set in sets, `no permission set ${set}: ${line}`);
    }
  }
});

Deno.test("permissions: the auth set lists every environment variable the auth app reads", async () => {
  const env = sets.auth.env as string[];
  const read = new Set<string>();
  for await (const entry of Deno.readDir(`${REPO}examples/auth`)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    if (entry.name.endsWith("_test.ts") || entry.name.startsWith("_")) continue;
    const source = await Deno.readTextFile(
      `${REPO}examples/auth/${entry.name}`,
    );
    for (const match of source.matchAll(/\benv(?:\.get)?\("([A-Za-z_]+)"\)/g)) {
      read.add(match[1]);
    }
  }
  assert.ok(read.size > 5, `found ${read.size} variables`);
  for (const name of read) {
    assert.ok(env.includes(name), `${name} is read but not in the auth set`);
  }
});
