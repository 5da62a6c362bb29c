/**
 * Serves the uploads example on http://127.0.0.1:8001 (`PORT` to change):
 * `deno run --allow-net=127.0.0.1 --allow-read --allow-write --allow-env examples/uploads/main.ts`.
 * Files go to a new temporary folder, removed when the server stops
 * (Ctrl-C or `SIGTERM`).
 *
 * @module
 */
import { PortInUseError, serve, type Server } from "@fetchkit/toolkit/serve";
import { portInUseMessage } from "../_port_hint.ts";
import { createUploadsApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8001);
const directory = await Deno.makeTempDir({ prefix: "fetchkit-uploads-" });

function removeUploads(): void {
  try {
    Deno.removeSync(directory, { recursive: true });
  } catch {
    // Already gone.
  }
}

let server: Server;
try {
  server = serve(createUploadsApp({ directory }).fetch, {
    hostname: "127.0.0.1",
    port,
    onListen({ hostname, port }) {
      console.log(`Listening on http://${hostname}:${port}/`);
      console.log(`Uploads are saved in ${directory}`);
    },
  });
} catch (error) {
  removeUploads();
  if (!(error instanceof PortInUseError)) throw error;
  console.error(portInUseMessage(port));
  Deno.exit(1);
}

// SIGINT or SIGTERM: serve() lets uploads in flight finish, then this runs.
await server.finished;
removeUploads();
