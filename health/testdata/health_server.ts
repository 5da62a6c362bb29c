/**
 * A server for sigterm_test.ts, on Deno, Node and Bun: /livez, /readyz,
 * and /slow (answers after 800 ms), served with `drainMs` (first
 * argument, default 1500). Prints its port, and "finished" once serve()
 * has shut down.
 *
 * @module
 */

import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createHealthCheck } from "@fetchkit/toolkit/health";
import { serve } from "@fetchkit/toolkit/serve";

const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);

const health = createHealthCheck({ checks: { self: async () => {} } });
const router = createRouter();
router.get("/livez", health.live);
router.get("/readyz", health.ready);
router.get("/slow", async () => {
  await new Promise((resolve) => setTimeout(resolve, 800));
  return new Response("slow done");
});

const server = serve(router.fetch, {
  hostname: "127.0.0.1",
  port: 0,
  drainMs: Number(args[0] ?? 1500),
  onListen: ({ port }) => console.log(`PORT ${port}`),
});
await server.finished;
console.log("finished");
