// Every link in the package's own markdown resolves both in a checkout and
// where JSR shows it: a relative link must name a file the package publishes
// (checked against `deno publish --dry-run`'s own list), with its heading when
// it has an anchor; a link to the repository must name a file that exists
// here. The examples' READMEs and BENCHMARKS.md are published (text only) so
// that README's local links to them work on the package page too; the
// examples' and BENCHMARKS.md's own links point into code (examples/, bench/)
// that stays in the repository.

import assert from "node:assert/strict";

const root = new URL("../", import.meta.url);
const REPOSITORY = "https://github.com/fetchkit/toolkit/";

/** The files `deno publish` would upload, as paths from the root. */
async function publishedFiles(): Promise<Set<string>> {
  const { stdout, stderr, success } = await new Deno.Command(Deno.execPath(), {
    args: ["publish", "--dry-run", "--allow-dirty", "--no-check"],
    cwd: root,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  assert.ok(success, text);
  const files = new Set<string>();
  for (const [, url] of text.matchAll(/^\s+(file:\/\/\S+)/gm)) {
    files.add(decodeURIComponent(url.slice(root.href.length)));
  }
  assert.ok(files.has("README.md"), `no file list in:\n${text}`);
  return files;
}

/** Link targets in markdown: `[text](target)`, `![alt](target)`, src/href. */
function linksOf(markdown: string): string[] {
  // Code is not a link.
  const text = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`]*`/g, "");
  return [
    ...[...text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1]),
    ...[...text.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]),
  ];
}

/** GitHub's anchor for a heading. */
function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "")
    .replace(/ /g, "-");
}

function anchorsOf(markdown: string): Set<string> {
  const text = markdown.replace(/```[\s\S]*?```/g, "");
  return new Set(
    [...text.matchAll(/^#+ (.+)$/gm)].map((m) => slug(m[1])),
  );
}

const published = await publishedFiles();
const markdown = [...published].filter((file) =>
  file.endsWith(".md") && !file.startsWith("examples/") &&
  file !== "BENCHMARKS.md"
);

Deno.test("the package publishes its README, license, changelog and guides, and no example or benchmark code", () => {
  for (
    const file of [
      "README.md",
      "LICENSE",
      "CHANGELOG.md",
      "SECURITY.md",
      "BENCHMARKS.md",
      "examples/auth/README.md",
    ]
  ) {
    assert.ok(published.has(file), file);
  }
  for (const file of published) {
    assert.doesNotMatch(file, /^bench\//, file);
    if (file.startsWith("examples/")) {
      assert.match(file, /^examples\/\w+\/README\.md$/, file);
    }
  }
});

for (const file of markdown) {
  Deno.test(`links in ${file} resolve on the package page`, async () => {
    const text = await Deno.readTextFile(new URL(file, root));
    const base = new URL(file, "https://package.invalid/");
    const links = linksOf(text);
    for (const link of links) {
      if (link.startsWith(REPOSITORY)) {
        // https://github.com/fetchkit/toolkit/blob/main/<path>
        const path = /^(?:blob|tree)\/main\/([^#?]+)/.exec(
          link.slice(REPOSITORY.length),
        )?.[1];
        if (path === undefined) continue; // the repository, an issue, a compare
        await Deno.stat(new URL(path, root)).catch(() => {
          throw new Error(
            `${file}: ${link} names a file not in the repository`,
          );
        });
        continue;
      }
      if (/^(https|mailto):/.test(link)) continue;
      assert.ok(!/^[a-z]+:/.test(link), `${file}: ${link} is not https`);
      const target = new URL(link, base);
      const path = decodeURIComponent(target.pathname.slice(1));
      const anchor = decodeURIComponent(target.hash.slice(1));
      assert.ok(
        published.has(path),
        `${file}: ${link} points to ${path}, which the package does not publish; ` +
          `link ${REPOSITORY}blob/main/${path} instead`,
      );
      if (anchor !== "" && path.endsWith(".md")) {
        const linked = await Deno.readTextFile(new URL(path, root));
        assert.ok(
          anchorsOf(linked).has(anchor),
          `${file}: ${link}: no heading "#${anchor}" in ${path}`,
        );
      }
    }
  });
}
