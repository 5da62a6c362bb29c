// The examples' READMEs: each example has one naming its port; no two
// examples share a port, counting every port a recipe (in an example's
// README or the repository's) starts it on, so any of them run together;
// and the single-process commands run as written.
import assert from "node:assert/strict";
import { startCommand } from "../_tools/doc_run.ts";

const REPO = new URL("../", import.meta.url).pathname;
const EXAMPLES = [
  "auth",
  "api",
  "live",
  "mcp",
  "multi_server",
  "resources",
  "uploads",
];

/** Where the default port is set: `PORT ... ?? 8000`. */
const SETTINGS: Record<string, string> = { auth: "config.ts" };

async function defaultPort(example: string): Promise<number> {
  const file = `${REPO}examples/${example}/${SETTINGS[example] ?? "main.ts"}`;
  const source = await Deno.readTextFile(file);
  const port = /"PORT"\)? \?\? (\d+)\)?;/.exec(source)?.[1];
  assert.ok(port, `no default port in ${file}`);
  return Number(port);
}

/** Every `PORT=n` a recipe line starting this example sets. */
function recipePorts(text: string, example: string): number[] {
  return text.split("\n")
    .filter((line) => line.includes(`examples/${example}/main.ts`))
    .flatMap((line) => [...line.matchAll(/\bPORT=(\d+)/g)])
    .map((match) => Number(match[1]));
}

Deno.test("examples: each has a README naming its default port, and no two share a port", async () => {
  const root = await Deno.readTextFile(`${REPO}README.md`) +
    await Deno.readTextFile(`${REPO}docs/guide.md`);
  const owners = new Map<number, string>();
  for (const example of EXAMPLES) {
    const readme = await Deno.readTextFile(
      `${REPO}examples/${example}/README.md`,
    );
    const port = await defaultPort(example);
    assert.match(
      readme,
      new RegExp(`127\\.0\\.0\\.1:${port}\\b`),
      `examples/${example}/README.md names its port ${port}`,
    );
    const ports = new Set([
      port,
      ...recipePorts(readme, example),
      ...recipePorts(root, example),
    ]);
    for (const used of ports) {
      assert.ok(
        !owners.has(used) || owners.get(used) === example,
        `port ${used}: ${owners.get(used)} and ${example}`,
      );
      owners.set(used, example);
    }
  }
  // The live board's two-server recipe uses 8002 and 8003.
  assert.equal(owners.get(8003), "live");
});

for (const example of ["resources", "uploads"]) {
  Deno.test(`examples/${example}/README.md: its run command works as written`, async () => {
    const readme = await Deno.readTextFile(
      `${REPO}examples/${example}/README.md`,
    );
    const command = readme.split("\n").find((line) =>
      line.startsWith("deno run ") &&
      line.endsWith(`examples/${example}/main.ts`)
    );
    assert.ok(command, "a deno run line");
    const server = await startCommand(REPO, command, { PORT: "0" });
    try {
      const response = await fetch(`${server.origin}/`, {
        headers: { Accept: "text/html" },
      });
      assert.equal(response.status, 200);
      assert.match(await response.text(), /<html lang="en">/);
    } finally {
      await server.stop();
    }
  });
}
