// Matching time must grow linearly with the path, whatever the pattern:
// each case below took seconds to minutes with backtracking regexes.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { setCodegen, SETTLE } from "../matcher/matcher.ts";
import { compilePattern, linearExec } from "../matcher/capture_pattern.ts";
import { parsePattern } from "../matcher/pattern.ts";

const REMIX = "/*a/a/*b/b/*c/c/*d/d/*e/e/*f/f/*g/g/*h/end";
const CASES: [pattern: string, path: string, status: number][] = [
  ["/:a-:b-:c.txt", "/" + "a-".repeat(5000) + "x.txj", 404],
  ["/:a-:b-:c.txt", "/" + "a-".repeat(5000) + "x.txt", 200],
  ["/:a-:b-:c-:d.txt", "/" + "a-".repeat(5000) + "x.txj", 404],
  ["/*a/x/*b/x/*c/end", "/x".repeat(5000), 404],
  ["/*a/x/*b/x/*c/end", "/x".repeat(5000) + "/end", 200],
  [REMIX, "/" + "a/b/".repeat(2500), 404],
  [REMIX, "/" + "a/".repeat(5000) + "b/c/d/e/f/g/h/end", 404],
];

for (const codegen of [true, false]) {
  Deno.test(`matching stays linear on hostile paths (${codegen ? "generated" : "interpreted"})`, async () => {
    const previous = setCodegen(codegen);
    try {
      for (const [pattern, path, status] of CASES) {
        const router = createRouter();
        router.get(pattern, () => new Response("ok"));
        // SETTLE lookups, so the generated matcher (not the interpreter
        // that serves a table right after a change) answers the hostile one.
        for (let i = 0; i < SETTLE; i++) {
          await (await router.fetch(new Request("http://localhost/warm")))
            .body?.cancel();
        }
        // Best of three (stopping at the first fast one), so a busy shared
        // machine cannot fail it; the backtracking matcher took seconds on
        // every try.
        let ms = Infinity;
        let response!: Response;
        for (let run = 0; run < 3 && ms >= 100; run++) {
          const request = new Request(`http://localhost${path}`);
          const start = performance.now();
          response = await router.fetch(request);
          ms = Math.min(ms, performance.now() - start);
          await response.body?.cancel();
        }
        assert.equal(
          response.status,
          status,
          `${pattern} on ${path.length} chars`,
        );
        // Generous: these took 2 s to over 120 s before; now about 1 ms.
        assert.ok(
          ms < 100,
          `${pattern} on ${path.length} chars took ${ms.toFixed(1)} ms`,
        );
      }
    } finally {
      setCodegen(previous);
    }
  });
}

Deno.test("hostile params still match as the regex would", async () => {
  const router = createRouter();
  router.get("/:a-:b-:c.txt", ({ params }) => Response.json(params));
  router.get("/*a/x/*b/end", ({ params }) => Response.json(params));
  const long = "a-".repeat(3000);
  const one = await router.fetch(new Request(`http://localhost/${long}x.txt`));
  assert.deepEqual(await one.json(), {
    a: "a",
    b: "a",
    c: long.slice(4) + "x",
  });
  const two = await router.fetch(
    new Request(`http://localhost${"/q".repeat(2000)}/x/y/x/z/end`),
  );
  assert.deepEqual(await two.json(), {
    a: "q/".repeat(1999) + "q/x/y",
    b: "z",
  });
});

// A seeded differential test: the linear matcher against the regex it
// replaces, on patterns and inputs from a small alphabet (so that many
// splits are possible).
function mulberry32(seed: number): () => number {
  return () => {
    seed |= 0;
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

Deno.test("linear matcher agrees with the regex on 5,000 random cases", () => {
  const seed = Number(Deno.env.get("FUZZ_SEED") ?? 20261123);
  const random = mulberry32(seed);
  const pick = <T>(list: readonly T[]): T =>
    list[Math.floor(random() * list.length)];
  const texts = ["a", "-", ".", "/", "a-", "/a", "x/"];
  for (let n = 0; n < 5000; n++) {
    let pattern = "/";
    let params = 0;
    const parts = 2 + Math.floor(random() * 5);
    for (let i = 0; i < parts; i++) {
      const kind = random();
      if (kind < 0.35) pattern += `:p${params++}`;
      else if (kind < 0.55) pattern += `*w${params++}`;
      else pattern += pick(texts);
      // Keep parameters apart by text, as patterns require.
      pattern += pick(texts);
    }
    let tokens;
    try {
      tokens = parsePattern(pattern).filter((t) => t.type !== "optional");
    } catch {
      continue; // not a pattern the router accepts
    }
    const flat = tokens as Parameters<typeof compilePattern>[0];
    const source = compilePattern(flat).source;
    const regex = new RegExp(source);
    const items = flat.map((t) =>
      t.type === "text"
        ? { kind: 0 as const, text: t.value }
        : { kind: t.type === "param" ? 1 as const : 2 as const }
    );
    const groups = items.filter((i) => i.kind !== 0).length;
    for (let k = 0; k < 4; k++) {
      let input = "";
      const length = Math.floor(random() * 24);
      for (let c = 0; c < length; c++) input += pick(["a", "-", ".", "/", "x"]);
      if (random() < 0.5) input = "/" + input;
      const expected = regex.exec(input);
      const actual = linearExec(mergeText(items), groups, input);
      assert.deepEqual(
        actual,
        expected === null ? null : [...expected],
        `seed ${seed}, case ${n}: ${pattern} on ${JSON.stringify(input)}`,
      );
    }
  }
});

function mergeText<T extends { kind: number; text?: string }>(items: T[]): T[] {
  const out: T[] = [];
  for (const item of items) {
    const last = out.at(-1);
    if (item.kind === 0 && last?.kind === 0) {
      out[out.length - 1] = { ...last, text: last.text! + item.text! };
    } else if (!(item.kind === 0 && item.text === "")) out.push(item);
  }
  return out;
}

Deno.test("a pattern with too many optional groups is refused at once, naming it", () => {
  const router = createRouter();
  const ten = "/x" + "(/:p".repeat(10) + ")".repeat(10);
  router.get(ten, () => new Response("ok")); // nested groups: 11 forms
  const flat = "/x" + Array.from({ length: 10 }, (_, i) => `(/a${i})`).join("");
  router.get(flat, () => new Response("ok")); // 1024 forms: the limit
  const twenty = "/y" +
    Array.from({ length: 20 }, (_, i) => `(/b${i})`).join("");
  const start = performance.now();
  assert.throws(
    () => router.get(twenty, () => new Response("ok")),
    (error: unknown) =>
      error instanceof TypeError && error.message.includes(twenty) &&
      /more than 1024 combinations/.test(error.message),
  );
  // Expanding 2^20 forms takes seconds; a refusal takes well under a
  // millisecond (the bound leaves room for a loaded CI machine).
  assert.ok(performance.now() - start < 500, "refused before expanding");
});
