/**
 * Requests per second through `router.fetch` for every session case, in
 * interleaved rounds so that machine noise hits all cases alike; prints the
 * median of the rounds, the overhead against the group's no-session
 * baseline, and the ratio against Remix.
 *
 * Run: deno run --unstable-kv --allow-all bench/session/load.ts [rounds] [requests]
 */
import { median } from "../_stats.ts";
import { cases } from "./_apps.ts";

const rounds = Number(Deno.args[0] ?? 15);
const perRound = Number(Deno.args[1] ?? 5000);

// Warm up every path (JIT, caches) before measuring.
for (const { request } of cases) {
  for (let i = 0; i < 2000; i++) await request();
}

const micros = new Map(cases.map((c) => [c, [] as number[]]));
for (let round = 0; round < rounds; round++) {
  // Rotate the order each round so no case always runs first.
  for (let k = 0; k < cases.length; k++) {
    const c = cases[(k + round) % cases.length];
    const start = performance.now();
    for (let i = 0; i < perRound; i++) await c.request();
    micros.get(c)!.push(((performance.now() - start) * 1000) / perRound);
  }
}

console.log(
  `Deno ${Deno.version.deno}, ${rounds} rounds x ${perRound} requests; median µs/request\n`,
);
console.log(
  "| group | case | µs/request | requests/s | overhead vs no session |",
);
console.log("| --- | --- | ---: | ---: | ---: |");
for (const c of cases) {
  const us = median(micros.get(c)!);
  const prefix = c.name.split(":")[0];
  const base = cases.find((b) =>
    b.group === c.group && b.name === `${prefix}: no session`
  );
  const overhead = base === undefined ? NaN : us - median(micros.get(base)!);
  console.log(
    `| ${c.group} | ${c.name} | ${us.toFixed(1)} | ${
      Math.round(1e6 / us).toLocaleString("en-US")
    } | ${
      c === base || base === undefined ? "-" : `${overhead.toFixed(1)} µs`
    } |`,
  );
}
const pick = (group: string, name: string) =>
  median(micros.get(cases.find((c) => c.group === group && c.name === name)!)!);
for (const group of ["read", "write"]) {
  const ours = pick(group, "fetchkit: cookie storage") -
    pick(group, "fetchkit: no session");
  const theirs = pick(group, "remix: cookie storage") -
    pick(group, "remix: no session");
  const total = pick(group, "remix: cookie storage") /
    pick(group, "fetchkit: cookie storage");
  console.log(
    `\n${group}: cookie-session overhead fetchkit ${
      ours.toFixed(1)
    } µs vs Remix ${theirs.toFixed(1)} µs; whole request ${
      total.toFixed(2)
    }x faster than Remix`,
  );
}
Deno.exit(0);
