/**
 * Serves the notes API on http://127.0.0.1:8010 (`PORT` to change), keeping
 * notes in a Deno KV file (`DENO_KV_PATH`, default `.data/api.sqlite`):
 *
 *     deno run --unstable-kv --allow-net=127.0.0.1 --allow-env=PORT,DENO_KV_PATH \
 *       --allow-read=.data --allow-write=.data examples/api/main.ts
 *
 *     curl -H 'content-type: application/json' -d '{"title":"Hi"}' http://127.0.0.1:8010/notes
 *     curl http://127.0.0.1:8010/openapi.json
 *     deno run --allow-net=127.0.0.1 examples/api/client.ts http://127.0.0.1:8010
 *
 * @module
 */
import { createApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8010);
const path = Deno.env.get("DENO_KV_PATH") ?? ".data/api.sqlite";
if (!Deno.env.has("DENO_KV_PATH")) {
  await Deno.mkdir(".data", { recursive: true });
}
const kv = await Deno.openKv(path);
const server = Deno.serve({
  hostname: "127.0.0.1",
  port,
  onListen: ({ hostname, port }) =>
    console.log(`Listening on http://${hostname}:${port}/ (notes in ${path})`),
}, createApp({ kv }).fetch);
await server.finished;
kv.close();
