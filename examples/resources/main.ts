/**
 * Serves the resources example: `deno task dev`, then open the printed URL.
 *
 * @module
 */
import { createApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8000);
Deno.serve({ hostname: "127.0.0.1", port }, createApp().fetch);
