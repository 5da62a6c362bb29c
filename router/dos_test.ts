import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { Matcher, setCodegen } from "./_matcher.ts";

// The patterns of issue 12 that made one request take seconds with a
// backtracking regex. Each runs on a path of about 10 KB, in the generated
// matcher and in the interpreter, and must answer well within 50 ms (the
// bound is generous on purpose: a regression is seconds, not milliseconds).
const CASES: { pattern: string; path: string; params?: true }[] = [
  {
    pattern: "/:a-:b-:c.txt",
    path: "/" + "a-".repeat(5000) + "x.txj",
  },
  {
    pattern: "/:a-:b-:c-:d.txt",
    path: "/" + "a-".repeat(5000) + "x.txj",
  },
  { pattern: "/*a/x/*b/x/*c/end", path: "/x".repeat(5000) },
  {
    pattern: "/*a/a/*b/b/*c/c/*d/d/*e/e/*f/f/*g/g/*h/end",
    path: "/a".repeat(5000),
  },
  // Matching ones too.
  {
    pattern: "/:a-:b-:c.txt",
    path: "/" + "a-".repeat(5000) + "x.txt",
    params: true,
  },
  {
    pattern: "/*a/x/*b/x/*c/end",
    path: "/x".repeat(5000) + "/end",
    params: true,
  },
];

for (const codegen of [true, false]) {
  for (const { pattern, path, params } of CASES) {
    Deno.test(`${codegen ? "compiled" : "interpreted"}: ${pattern} on ${path.length} characters is linear`, () => {
      const previous = setCodegen(codegen);
      try {
        const matcher = new Matcher<string>();
        matcher.add("GET", pattern, pattern);
        assert.equal(matcher.isCompiled("GET"), codegen); // compiles now
        // Best of three, so a busy machine cannot fail it; the old
        // backtracking took seconds on every run.
        let took = Infinity;
        for (let run = 0; run < 3 && took >= 50; run++) {
          const start = performance.now();
          const found = matcher.match("GET", path);
          took = Math.min(took, performance.now() - start);
          assert.equal(found !== undefined, params === true);
        }
        assert.ok(took < 50, `took ${took.toFixed(1)} ms`);
      } finally {
        setCodegen(previous);
      }
    });
  }
}

Deno.test("optional groups past the expansion bound are a TypeError naming the pattern", () => {
  const router = createRouter();
  const pattern = "/x" + "(/a)".repeat(16);
  assert.throws(
    () => router.get(pattern, () => new Response()),
    (error: Error) =>
      error instanceof TypeError && error.message.includes(pattern) &&
      error.message.includes("128"),
  );
  // Seven groups (128 forms) are fine.
  router.get("/y" + "(/a)".repeat(7), () => new Response("ok"));
});

// The VM must capture exactly what the backtracking regex captures (lazy
// parameters, greedy wildcards): compared on many small paths.
Deno.test("the linear matcher captures what the regex captures", () => {
  const patterns: [string, RegExp][] = [
    ["/:a-:b-:c.txt", /^\/([^/]+?)-([^/]+?)-([^/]+?)\.txt$/],
    ["/*a/x/*b/x/*c/end", /^\/(.*)\/x\/(.*)\/x\/(.*)\/end$/],
    ["/*a/:b.:c", /^\/(.*)\/([^/]+?)\.([^/]+?)$/],
    ["/f/*a-:b/*c", /^\/f\/(.*)-([^/]+?)\/(.*)$/],
  ];
  const alphabet = ["a", "-", ".", "/", "x", "/x/", "txt", "end", "f"];
  let seed = 12;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  for (const codegen of [true, false]) {
    const previous = setCodegen(codegen);
    try {
      for (const [pattern, regex] of patterns) {
        const matcher = new Matcher<string>();
        matcher.add("GET", pattern, pattern);
        let matched = 0;
        for (let n = 0; n < 3000; n++) {
          let path = "/";
          const parts = 1 + Math.floor(random() * 12);
          for (let i = 0; i < parts; i++) {
            path += alphabet[Math.floor(random() * alphabet.length)];
          }
          if (random() < 0.3) {
            path += pattern.endsWith(".txt") ? ".txt" : "/end";
          }
          const expected = regex.exec(path);
          const found = matcher.match("GET", path);
          assert.deepEqual(
            found === undefined ? null : Object.values(found.params!),
            expected === null ? null : expected.slice(1),
            `${pattern} on ${path}`,
          );
          if (expected !== null) matched++;
        }
        assert.ok(matched > 5, `${pattern}: only ${matched} matches tried`);
      }
    } finally {
      setCodegen(previous);
    }
  }
});
