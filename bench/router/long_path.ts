/**
 * The cost per request of 17 KB paths against a router with static routes:
 * before the static lookup was guarded by the longest static path, each
 * such path was hashed (V8 hashes strings over 16,383 characters by their
 * length alone, so they all collide in the Map). Each request has a fresh,
 * distinct path of one length, as an attacker would send.
 *
 * Cases run in interleaved rounds (A B C A B C); each is timed in process
 * CPU time (user + system) over `count` requests; medians per request.
 *
 * Run: deno run --allow-all bench/router/long_path.ts [rounds] [count]
 *
 * @module
 */
import process from "node:process";
import { createRouter } from "@fetchkit/toolkit/fetch-router";

const rounds = Number(Deno.args[0] ?? 7);
const count = Number(Deno.args[1] ?? 2000);

const router = createRouter();
for (let i = 0; i < 50; i++) {
  router.get(`/static/page${i}`, () => new Response("page"));
}
router.get("/users/:id", ({ params }) => new Response(params.id));

let serial = 0;
/** A fresh path of `length` characters, different from the last at its end. */
function path(length: number): string {
  const suffix = String(serial++);
  return "/" + "a".repeat(length - 1 - suffix.length) + suffix;
}

const CASES: Record<string, () => string> = {
  "short 404 (/ + 16 chars)": () => path(17),
  "16,000-char 404": () => path(16_000),
  "17,000-char 404": () => path(17_000),
  "static hit /static/page7": () => "/static/page7",
};

async function run(make: () => string): Promise<number> {
  const requests = Array.from(
    { length: count },
    () => new Request(`http://localhost${make()}`),
  );
  const start = process.cpuUsage();
  for (const request of requests) {
    const response = await router.fetch(request);
    await response.body?.cancel();
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / count; // µs per request
}

const times = new Map<string, number[]>();
for (const make of Object.values(CASES)) await run(make); // warm up
for (let round = 0; round < rounds; round++) {
  for (const [name, make] of Object.entries(CASES)) {
    const list = times.get(name) ?? [];
    list.push(await run(make));
    times.set(name, list);
  }
}
console.log(
  `| path | µs per request (median of ${rounds} × ${count}) | spread |`,
);
console.log("|---|---:|---:|");
for (const [name, list] of times) {
  list.sort((a, b) => a - b);
  console.log(
    `| ${name} | ${list[list.length >> 1].toFixed(2)} | ${list[0].toFixed(2)}-${
      list[list.length - 1].toFixed(2)
    } |`,
  );
}
