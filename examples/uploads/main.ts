/**
 * Serves the uploads example on http://127.0.0.1:8001 (files go to a temp
 * directory): `deno run --allow-net=127.0.0.1 --allow-read --allow-write --allow-env examples/uploads/main.ts`.
 *
 * @module
 */
import { createUploadsApp } from "./app.ts";

const directory = await Deno.makeTempDir({ prefix: "fetchkit-uploads-" });
console.log(`Uploads are saved in ${directory}`);
const port = Number(Deno.env.get("PORT") ?? 8001);
Deno.serve(
  { hostname: "127.0.0.1", port },
  createUploadsApp({ directory }).fetch,
);
