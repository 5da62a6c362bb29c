/**
 * The router's worst cases: 5,000 sibling routes of one shape,
 * matched and missed, and the patterns that made a backtracking matcher
 * take seconds, on 10 KB paths. Ordinary routes are in router_bench.ts.
 *
 * Run: `deno bench --allow-all bench/router/scale_bench.ts`.
 *
 * @module
 */

import { equal } from "node:assert/strict";
import { Matcher, SETTLE } from "../../matcher/matcher.ts";

const SIBLINGS: {
  shape: string;
  pattern: (i: number) => string;
  hit: string;
  miss: string;
}[] = [
  {
    shape: "/p{i}-:x",
    pattern: (i) => `/p${i}-:x`,
    hit: "/p4321-abc",
    miss: "/q1-abc",
  },
  {
    shape: "/f{i}x*",
    pattern: (i) => `/f${i}x*`,
    hit: "/f4321x/a/b",
    miss: "/f5000y/a",
  },
  {
    shape: "/s{i}/:x",
    pattern: (i) => `/s${i}/:x`,
    hit: "/s4321/abc",
    miss: "/s5000/abc",
  },
  {
    shape: "/:x.t{i}",
    pattern: (i) => `/:x.t${i}`,
    hit: "/a.t4321",
    miss: "/a.u1",
  },
];

for (const { shape, pattern, hit, miss } of SIBLINGS) {
  const matcher = new Matcher<number>();
  for (let i = 0; i < 5000; i++) matcher.add("GET", pattern(i), i);
  for (let i = 0; i < SETTLE; i++) matcher.match("GET", "/");
  equal(matcher.match("GET", hit)?.value, 4321);
  equal(matcher.match("GET", miss), undefined);
  Deno.bench({
    name: `5,000 × ${shape}: match`,
    group: "siblings",
    fn: () => void matcher.match("GET", hit),
  });
  Deno.bench({
    name: `5,000 × ${shape}: miss`,
    group: "siblings",
    fn: () => void matcher.match("GET", miss),
  });
}

const DOS: [string, string][] = [
  ["/:a-:b-:c.txt", "/" + "a-".repeat(5000) + "x.txj"],
  ["/:a-:b-:c-:d.txt", "/" + "a-".repeat(5000) + "x.txj"],
  ["/*a/x/*b/x/*c/end", "/x".repeat(5000)],
  ["/*a/a/*b/b/*c/c/*d/d/*e/e/*f/f/*g/g/*h/end", "/a".repeat(5000)],
];

for (const [pattern, path] of DOS) {
  const matcher = new Matcher<string>();
  matcher.add("GET", pattern, pattern);
  for (let i = 0; i < SETTLE; i++) matcher.match("GET", "/");
  equal(matcher.match("GET", path), undefined);
  Deno.bench({
    name: `${pattern} on ${path.length} characters (404)`,
    group: "worst case",
    fn: () => void matcher.match("GET", path),
  });
}
