/**
 * Serves the resources example on http://127.0.0.1:8004 (`PORT` to change):
 * `deno run -P=resources examples/resources/main.ts`.
 * `SIGTERM` or Ctrl-C lets in-flight requests finish, then the process ends.
 *
 * @module
 */
import { serve } from "@fetchkit/toolkit/serve";
import { createApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8004);
serve(createApp().fetch, {
  hostname: "127.0.0.1",
  port,
  onListen: ({ hostname, port }) =>
    console.log(`Listening on http://${hostname}:${port}/`),
});
