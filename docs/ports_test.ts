// Every documented program listens on a port no other one uses, so a reader
// can run the quick start, a guide block and any example beside
// `deno task dev`: the programs of README.md and docs/guide.md, and each
// example's default port and the ports its recipes start it on.
import assert from "node:assert/strict";
import { codeBlocks } from "../_tools/doc_run.ts";

const REPO = new URL("../", import.meta.url);

/** `port: n` in each code block of a markdown file, with where it is. */
async function blockPorts(file: string): Promise<[string, number][]> {
  const text = await Deno.readTextFile(new URL(file, REPO));
  const found: [string, number][] = [];
  const blocks = [...text.matchAll(/```(?:ts|js)\n([\s\S]*?)```/g)];
  for (const [index, block] of blocks.entries()) {
    for (const match of block[1].matchAll(/\bport: (\d+)\b/g)) {
      if (match[1] === "0") continue;
      found.push([`${file} block ${index + 1}`, Number(match[1])]);
    }
  }
  return found;
}

/** Each example's default port (`PORT ... ?? n`) and its recipes' `PORT=n`. */
async function examplePorts(): Promise<[string, number][]> {
  const found: [string, number][] = [];
  const docs = [
    await Deno.readTextFile(new URL("README.md", REPO)),
    await Deno.readTextFile(new URL("docs/guide.md", REPO)),
  ];
  for (const entry of Deno.readDirSync(new URL("examples/", REPO))) {
    if (!entry.isDirectory) continue;
    const ports = new Set<number>();
    for (const name of ["main.ts", "config.ts"]) {
      const source = await Deno.readTextFile(
        new URL(`examples/${entry.name}/${name}`, REPO),
      ).catch(() => "");
      const port = /"PORT"\)? \?\? (\d+)\)?;/.exec(source)?.[1];
      if (port !== undefined) ports.add(Number(port));
    }
    const readme = await Deno.readTextFile(
      new URL(`examples/${entry.name}/README.md`, REPO),
    ).catch(() => "");
    for (const text of [readme, ...docs]) {
      for (const line of text.split("\n")) {
        if (!line.includes(`examples/${entry.name}/main.ts`)) continue;
        for (const match of line.matchAll(/\bPORT=(\d+)/g)) {
          ports.add(Number(match[1]));
        }
      }
    }
    assert.ok(ports.size > 0, `examples/${entry.name} has no default port`);
    for (const port of ports) found.push([`examples/${entry.name}`, port]);
  }
  return found;
}

Deno.test("every documented program has a port of its own", async () => {
  const all = [
    ...await blockPorts("README.md"),
    ...await blockPorts("docs/guide.md"),
    ...await examplePorts(),
  ];
  const owners = new Map<number, string>();
  for (const [where, port] of all) {
    const owner = owners.get(port);
    // An example's recipes may start it on its own default port again.
    assert.ok(
      owner === undefined || (owner === where && where.startsWith("examples/")),
      `port ${port} is used by ${owner} and ${where}`,
    );
    owners.set(port, where);
  }
  assert.equal(owners.get(8000), "examples/auth", "deno task dev is on 8000");
});

Deno.test("the guide's blocks are each found by the port check", async () => {
  const blocks = await codeBlocks("docs/guide.md");
  const ports = await blockPorts("docs/guide.md");
  const serving = blocks.filter(({ code }) =>
    /Deno\.serve\(\{ hostname|serve\(router\.fetch, \{ hostname/.test(code)
  );
  assert.equal(ports.length, serving.length);
});
