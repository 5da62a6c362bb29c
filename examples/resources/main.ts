/**
 * Serves the resources example on http://127.0.0.1:8000 (`PORT` to change):
 * `deno run --allow-net=127.0.0.1 --allow-env=PORT examples/resources/main.ts`.
 *
 * @module
 */
import { createApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
Deno.serve({ hostname: "127.0.0.1", port }, createApp().fetch);
