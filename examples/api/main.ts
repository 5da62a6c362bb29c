/**
 * Serves the notes API on http://127.0.0.1:8010 (`PORT` to change), keeping
 * notes in a Deno KV file (`DENO_KV_PATH`, default `.data/api.sqlite`); write
 * routes take bearer JWTs signed with `API_JWT_SECRET` (a public development
 * secret when unset, refused with `DENO_ENV=production`):
 *
 *     deno run -P=api --unstable-kv examples/api/main.ts
 *
 *     TOKEN=$(deno run -P=api-token examples/api/token.ts)
 *     curl -H "Authorization: Bearer $TOKEN" -H 'content-type: application/json' \
 *       -d '{"title":"Hi"}' http://127.0.0.1:8010/notes
 *     curl http://127.0.0.1:8010/openapi.json
 *     deno run --allow-net=127.0.0.1 examples/api/client.ts http://127.0.0.1:8010 "$TOKEN"
 *
 * @module
 */
import { serve } from "@fetchkit/toolkit/serve";
import { createApp } from "./app.ts";
import { apiSecret } from "./auth.ts";

const port = Number(Deno.env.get("PORT") ?? 8010);
const path = Deno.env.get("DENO_KV_PATH") ?? ".data/api.sqlite";
if (!Deno.env.has("DENO_KV_PATH")) {
  await Deno.mkdir(".data", { recursive: true });
}
const jwtSecret = apiSecret((name) => Deno.env.get(name));
const kv = await Deno.openKv(path);
const server = serve(createApp({ kv, jwtSecret }).fetch, {
  hostname: "127.0.0.1",
  port,
  onListen: ({ hostname, port }) =>
    console.log(`Listening on http://${hostname}:${port}/ (notes in ${path})`),
});
// SIGTERM or Ctrl-C: serve() lets in-flight requests finish, then the KV
// file is closed.
await server.finished;
kv.close();
