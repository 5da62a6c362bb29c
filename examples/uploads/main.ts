/**
 * Serves the uploads example on http://127.0.0.1:8001 (`PORT` to change):
 * `deno run -P=uploads examples/uploads/main.ts`.
 *
 * Files go to a new temporary folder, removed when the server stops
 * (Ctrl-C or `SIGTERM`). With `STORAGE=s3` they go to an S3 bucket instead,
 * named by `S3_ENDPOINT`, `S3_BUCKET`, `S3_REGION`, `S3_ACCESS_KEY_ID` and
 * `S3_SECRET_ACCESS_KEY` (and `S3_FORCE_PATH_STYLE=false` for AWS's
 * virtual-hosted buckets), so that several servers share them.
 *
 * @module
 */
import { PortInUseError, serve, type Server } from "@fetchkit/toolkit/serve";
import { portInUseMessage } from "../_port_hint.ts";
import {
  createLocalFileStorage,
  createS3FileStorage,
  type FileStorage,
} from "@fetchkit/toolkit/file-storage";
import { createUploadsApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8001);
const kind = Deno.env.get("STORAGE") ?? "local";

function s3FromEnv(): FileStorage {
  const env = (name: string) => {
    const value = Deno.env.get(name);
    if (!value) {
      console.error(
        `STORAGE=s3 needs ${name} (and S3_ENDPOINT, S3_BUCKET, S3_REGION, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY)`,
      );
      Deno.exit(1);
    }
    return value;
  };
  return createS3FileStorage({
    endpoint: env("S3_ENDPOINT"),
    bucket: env("S3_BUCKET"),
    region: env("S3_REGION"),
    accessKeyId: env("S3_ACCESS_KEY_ID"),
    secretAccessKey: env("S3_SECRET_ACCESS_KEY"),
    forcePathStyle: Deno.env.get("S3_FORCE_PATH_STYLE") !== "false",
  });
}

if (kind !== "local" && kind !== "s3") {
  console.error(`STORAGE must be "local" or "s3", got "${kind}"`);
  Deno.exit(1);
}
const directory = kind === "local"
  ? await Deno.makeTempDir({ prefix: "fetchkit-uploads-" })
  : undefined;
const storage = directory === undefined
  ? s3FromEnv()
  : createLocalFileStorage(directory);

function removeUploads(): void {
  if (directory === undefined) return;
  try {
    Deno.removeSync(directory, { recursive: true });
  } catch {
    // Already gone.
  }
}

let server: Server;
try {
  server = serve(createUploadsApp({ storage }).fetch, {
    hostname: "127.0.0.1",
    port,
    onListen({ hostname, port }) {
      console.log(`Listening on http://${hostname}:${port}/`);
      console.log(
        directory === undefined
          ? `Uploads are saved in the S3 bucket ${
            Deno.env.get("S3_BUCKET")
          } at ${Deno.env.get("S3_ENDPOINT")}`
          : `Uploads are saved in ${directory}`,
      );
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
