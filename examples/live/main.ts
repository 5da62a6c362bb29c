/**
 * Serves the live counter: `deno run --allow-net --allow-env
 * examples/live/main.ts`, then open http://127.0.0.1:8002.
 *
 * @module
 */
import { createLiveApp } from "./app.ts";

const app = createLiveApp();
Deno.serve({
  hostname: Deno.env.get("HOSTNAME") ?? "127.0.0.1",
  port: Number(Deno.env.get("PORT") ?? 8002),
}, app.fetch);
