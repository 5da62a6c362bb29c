/**
 * A server for shutdown_test.ts, run on Deno, Node and Bun: /slow answers
 * after 1.5 s, /hang after a minute. Prints its port, and "finished" when
 * serve() has shut down; then the process ends by itself. Argument: the
 * shutdown timeout in ms (default 5000).
 *
 * @module
 */

import { serve } from "@fetchkit/toolkit/serve";

const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const server = serve(async (request) => {
  const path = new URL(request.url).pathname;
  if (path === "/slow") await delay(1500);
  if (path === "/hang") await delay(60_000);
  return new Response(`done ${path}`);
}, {
  hostname: "127.0.0.1",
  port: 0,
  shutdownTimeoutMs: Number(args[0] ?? 5000),
  onListen: ({ port }) => console.log(`PORT ${port}`),
});
await server.finished;
console.log("finished");
