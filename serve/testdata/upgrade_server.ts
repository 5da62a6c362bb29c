/**
 * A server for upgrade_test.ts, run on Deno, Node and Bun: `/ws` is a
 * WebSocket that answers nothing, `/hang-upgrade` a handler that never
 * answers an upgrade, anything else a 404. Prints its port. Arguments:
 * the Node timeouts in ms (headers, keep-alive), and the WebSocket idle
 * time in ms.
 *
 * @module
 */

import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";
import { upgradeWebSocket } from "@fetchkit/toolkit/websocket";

const args: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);

const router = createRouter();
router.get("/ws", (context) => upgradeWebSocket(context, {}));
router.get(
  "/hang-upgrade",
  () => new Promise<Response>(() => {}),
);

serve(router.fetch, {
  hostname: "127.0.0.1",
  port: 0,
  node: {
    headersTimeout: Number(args[0] ?? 10_000),
    keepAliveTimeout: Number(args[1] ?? 5_000),
    webSocketIdleTimeout: Number(args[2] ?? 120_000),
  },
  onListen: ({ port }) => console.log(`PORT ${port}`),
});
