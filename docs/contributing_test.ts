// CONTRIBUTING.md maps every export to its files: checks that each export of
// deno.json has a row, that the row names the file deno.json points at, that
// every path the table names exists, that every BENCHMARKS.md section it
// names is a heading there, and that no library file imports another
// folder's private (`_`) file.

import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", root)));
const contributing = await Deno.readTextFile(new URL("CONTRIBUTING.md", root));
const headings = new Set(
  (await Deno.readTextFile(new URL("BENCHMARKS.md", root)))
    .split("\n")
    .filter((line) => line.startsWith("## "))
    .map((line) => line.slice(3).trim()),
);

interface Row {
  file: string;
  tests: string;
  benchmarks: string;
  sections: string;
}

// Rows of the export table: `| \`@fetchkit/toolkit...\` | file | ... |`.
function exportRows(text: string): Map<string, Row> {
  const rows = new Map<string, Row>();
  for (const line of text.split("\n")) {
    if (!line.startsWith(`| \`${config.name}`)) continue;
    // Split on cell borders only: section names may hold `|`-free backticks.
    const cells = line.slice(1, -1).split(" | ").map((cell) => cell.trim());
    assert.equal(cells.length, 5, `row has 5 cells: ${line}`);
    const [name, file, tests, benchmarks, sections] = cells;
    rows.set(name.replaceAll("`", ""), { file, tests, benchmarks, sections });
  }
  return rows;
}

function paths(cell: string): string[] {
  return [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1]);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(new URL(path, root));
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

const rows = exportRows(contributing);

Deno.test("CONTRIBUTING.md has a row for every export, naming its file", () => {
  for (const [subpath, target] of Object.entries(config.exports)) {
    const name = `${config.name}${subpath.slice(1)}`;
    const row = rows.get(name);
    assert.ok(row, `no row for ${name}`);
    assert.equal(
      row.file,
      `\`${String(target).replace(/^\.\//, "")}\``,
      `${name}'s row names its file`,
    );
  }
  assert.equal(rows.size, Object.keys(config.exports).length, "no extra rows");
});

Deno.test("every path the export table names exists", async () => {
  for (const [name, row] of rows) {
    for (const cell of [row.file, row.tests, row.benchmarks]) {
      for (const path of paths(cell)) {
        assert.ok(await exists(path), `${name}: ${path} does not exist`);
      }
    }
    for (const test of paths(row.tests)) {
      assert.ok(
        test.endsWith("/") || test.endsWith("_test.ts"),
        `${name}: ${test} is not a test file or folder`,
      );
    }
  }
});

Deno.test("every BENCHMARKS.md section the table names is a heading there", () => {
  for (const [name, row] of rows) {
    if (row.sections === "—") continue;
    for (const section of row.sections.split("; ")) {
      assert.ok(headings.has(section), `${name}: no section "${section}"`);
    }
  }
});

Deno.test("no library file imports another folder's private (_) file", async () => {
  const library: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const entry of Deno.readDir(new URL(dir || ".", root))) {
      const path = dir + entry.name;
      if (entry.isDirectory) {
        if (!/^(\.|node_modules$|testdata$)/.test(entry.name)) {
          await walk(path + "/");
        }
      } else if (/\.ts$/.test(entry.name)) {
        library.push(path);
      }
    }
  }
  for await (const entry of Deno.readDir(root)) {
    if (
      entry.isDirectory && !/^(\.|_|bench$|examples$|docs$)/.test(entry.name)
    ) {
      await walk(entry.name + "/");
    }
  }
  const isTest = (path: string) =>
    /(^|\/)(_test_[^/]*|[^/]*_test)\.ts$/.test(path);
  assert.ok(library.length > 50, "library files found");
  const crossings: string[] = [];
  for (const path of library.filter((path) => !isTest(path))) {
    const text = await Deno.readTextFile(new URL(path, root));
    for (const match of text.matchAll(/from "\.\.\/([a-z_]+)\/(_[^"]*)"/g)) {
      crossings.push(`${path} imports ${match[1]}/${match[2]}`);
    }
  }
  assert.deepEqual(crossings, []);
});
