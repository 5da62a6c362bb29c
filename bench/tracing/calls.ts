/**
 * The middleware's own cost, by process CPU time in interleaved rounds
 * (`../jwt/_rounds.ts`): each middleware called directly with a fresh
 * context and a `next()` that returns a ready response (the contenders of
 * `call_bench.ts`), against a pass-through middleware. No SDK.
 *
 * Run: deno run --allow-all bench/tracing/calls.ts [--rounds=21] [--per-round=200000]
 */
import { RequestContext } from "@fetchkit/toolkit/fetch-router";
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import { contextStorage } from "@fetchkit/toolkit/context-storage";
import { serverTiming } from "@fetchkit/toolkit/server-timing-middleware";
import { interleave, report } from "../jwt/_rounds.ts";

const args = new Map(
  Deno.args.map((arg) => arg.replace(/^--/, "").split("=") as [string, string]),
);
const rounds = Number(args.get("rounds") ?? 21);
const perRound = Number(args.get("per-round") ?? 200_000);

const request = new Request("http://localhost/users/123");
const next = () => Promise.resolve(new Response("ok"));
const contenders: [string, Middleware][] = [
  ["passThrough", (_context, next) => next()],
  ["tracing()", tracing()],
  ["contextStorage()", contextStorage()],
  ["serverTiming()", serverTiming({ enabled: true })],
];
console.log(`${rounds} rounds of ${perRound} calls:\n`);
report(
  await interleave(
    contenders.map(([name, middleware]) => ({
      name,
      run: async () => {
        await middleware(new RequestContext(request), next);
      },
    })),
    rounds,
    perRound,
  ),
);
