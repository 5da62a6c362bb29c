// Every example's CSS: no rule nested inside another rule's block by
// accident (a missing `}` nests what follows, and nested rules then match
// only inside the outer selector: the login page's provider buttons ran
// together on one line that way). Rules may sit inside conditional and
// grouping at-rules (@media, @supports, @layer, @container, @scope,
// @document, @starting-style) and keyframe selectors inside @keyframes;
// a `{` inside a style rule's block, or an unclosed block, is an error.
import assert from "node:assert/strict";

const GROUPING = new Set([
  "media",
  "supports",
  "layer",
  "container",
  "scope",
  "document",
  "starting-style",
  "keyframes",
  "-webkit-keyframes",
]);

/** Problems in `css`, each with its line number. */
export function nestingProblems(css: string): string[] {
  const problems: string[] = [];
  // Blocks open now: "group" (an at-rule that holds rules), "rule" (a
  // style rule or other at-rule that holds declarations).
  const stack: { kind: "group" | "rule"; line: number; prelude: string }[] = [];
  let prelude = "";
  let line = 1;
  for (let i = 0; i < css.length; i++) {
    const char = css[i];
    if (char === "\n") line++;
    if (char === "/" && css[i + 1] === "*") {
      const end = css.indexOf("*/", i + 2);
      const stop = end === -1 ? css.length : end + 2;
      line += (css.slice(i, stop).match(/\n/g) ?? []).length;
      i = stop - 1;
      continue;
    }
    if (char === '"' || char === "'") {
      let j = i + 1;
      while (j < css.length && css[j] !== char) j += css[j] === "\\" ? 2 : 1;
      prelude += css.slice(i, j + 1);
      i = j;
      continue;
    }
    if (char === "{") {
      const text = prelude.trim().replace(/\s+/g, " ");
      const parent = stack.at(-1);
      if (parent?.kind === "rule") {
        problems.push(
          `line ${line}: "${text}" is nested inside "${parent.prelude}" (line ${parent.line}); a "}" is missing?`,
        );
      }
      const atName = /^@([\w-]+)/.exec(text)?.[1]?.toLowerCase();
      stack.push({
        kind: atName !== undefined && GROUPING.has(atName) ? "group" : "rule",
        line,
        prelude: text,
      });
      prelude = "";
    } else if (char === "}") {
      if (stack.pop() === undefined) {
        problems.push(`line ${line}: "}" closes nothing`);
      }
      prelude = "";
    } else if (char === ";") {
      prelude = "";
    } else {
      prelude += char;
    }
  }
  for (const open of stack) {
    problems.push(`line ${open.line}: "${open.prelude}" is never closed`);
  }
  return problems;
}

async function* cssFiles(dir: URL): AsyncGenerator<URL> {
  for await (const entry of Deno.readDir(dir)) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) yield* cssFiles(url);
    else if (entry.name.endsWith(".css")) yield url;
  }
}

Deno.test("examples' CSS: no rule is nested inside another rule by accident", async () => {
  let checked = 0;
  for await (const file of cssFiles(new URL("./", import.meta.url))) {
    checked++;
    const problems = nestingProblems(await Deno.readTextFile(file));
    assert.deepEqual(problems, [], file.pathname);
  }
  assert.ok(checked > 0, "no CSS file found under examples/");
});

Deno.test("the nesting check: finds a missing brace, allows @media and @keyframes", () => {
  assert.deepEqual(
    nestingProblems(
      "a { color: red; }\n@media (width < 40rem) { a { color: blue; } }\n" +
        "@keyframes spin { from { rotate: 0deg; } to { rotate: 1turn; } }\n" +
        '/* { */ a::after { content: "{"; }\n@font-face { font-family: x; }',
    ),
    [],
  );
  assert.deepEqual(
    nestingProblems(
      "section.card {\n  max-width: 27rem;\n  .providers {\n    margin: 0;\n  }\n",
    ),
    [
      'line 3: ".providers" is nested inside "section.card" (line 1); a "}" is missing?',
      'line 1: "section.card" is never closed',
    ],
  );
  assert.deepEqual(nestingProblems("a { }\n}"), ['line 2: "}" closes nothing']);
});
