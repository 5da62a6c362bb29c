/**
 * A server for shutdown_test.ts, run on Deno, Node and Bun: `/work/:ms`
 * answers at once and hands `waitUntil()` work that takes `ms` and then
 * prints "work done"; `/inline/:ms` does the same work before answering,
 * `/none` none (for bench/serve/wait_until_ttfb.ts). Prints its port, and "finished" when serve() has
 * shut down. Argument: the shutdown timeout in ms (default 5000).
 *
 * @module
 */

import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";
import { waitUntil } from "@fetchkit/toolkit/wait-until";

const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const router = createRouter();
router.get("/work/:ms", (context) => {
  waitUntil(
    context,
    delay(Number(context.params.ms)).then(() => console.log("work done")),
  );
  return new Response("answered");
});

// The same work awaited before answering: what waitUntil() spares the client.
router.get("/inline/:ms", async (context) => {
  await delay(Number(context.params.ms));
  return new Response("answered");
});
// No work at all.
router.get("/none", () => new Response("answered"));

const server = serve(router.fetch, {
  hostname: "127.0.0.1",
  port: 0,
  shutdownTimeoutMs: Number(args[0] ?? 5000),
  onListen: ({ port }) => console.log(`PORT ${port}`),
});
await server.finished;
console.log("finished");
