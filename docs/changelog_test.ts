// The release rules of CHANGELOG.md: deno.json's version is the single
// source, so the changelog must have a section for it (the publish workflow
// checks the same for the tag), an Unreleased section, and link targets.

import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const { version } = JSON.parse(
  await Deno.readTextFile(new URL("deno.json", root)),
);
const changelog = await Deno.readTextFile(new URL("CHANGELOG.md", root));

Deno.test("CHANGELOG.md has Unreleased and the deno.json version, newest first", () => {
  const headings = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\S+))?$/gm)];
  assert.equal(headings[0]?.[1], "Unreleased");
  const current = headings.find((heading) => heading[1] === version);
  assert.ok(
    current,
    `no "## [${version}] - date" section for deno.json's version`,
  );
  assert.match(current[2] ?? "", /^\d{4}-\d{2}-\d{2}$/, "a release has a date");
  for (const [, name] of headings) {
    assert.match(
      changelog,
      new RegExp(`^\\[${name.replaceAll(".", "\\.")}\\]: https://`, "m"),
      `no link for [${name}]`,
    );
  }
});

Deno.test("the publish workflow checks the tag against deno.json", async () => {
  const workflow = await Deno.readTextFile(
    new URL(".github/workflows/publish.yml", root),
  );
  assert.match(workflow, /id-token: write/);
  assert.match(workflow, /deno\.json/);
  assert.match(workflow, /run: deno publish$/m);
});

Deno.test("the publish workflow runs CI on the tagged commit before publishing", async () => {
  const read = (name: string) =>
    Deno.readTextFile(new URL(`.github/workflows/${name}`, root));
  const publish = await read("publish.yml");
  assert.match(
    publish,
    /^ {2}test:\n {4}uses: \.\/\.github\/workflows\/ci\.yml$/m,
  );
  assert.match(publish, /^ {2}publish:\n {4}needs: test$/m);
  const ci = await read("ci.yml");
  assert.match(ci, /^ {2}workflow_call:$/m, "ci.yml can be called");
  assert.match(ci, /run: deno task check$/m);
  assert.match(ci, /run: deno task test$/m);
});
