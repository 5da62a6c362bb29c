/**
 * Runs a throwaway Ceph S3 gateway (see `ceph.ts`) until Ctrl-C, with a
 * bucket, and prints the environment for the uploads example:
 * `deno run --allow-all _tools/ceph_run.ts`. `S3_BUCKET` names the bucket
 * (default `uploads`).
 *
 * @module
 */
import { startCeph } from "./ceph.ts";

const ceph = await startCeph();
const bucket = Deno.env.get("S3_BUCKET") ?? "uploads";
await ceph.createBucket(bucket);
console.log(
  `export S3_ENDPOINT=${ceph.endpoint} S3_BUCKET=${bucket} S3_REGION=${ceph.region} ` +
    `S3_ACCESS_KEY_ID=${ceph.accessKeyId} S3_SECRET_ACCESS_KEY=${ceph.secretAccessKey}`,
);
console.log("Ceph is running; Ctrl-C stops it and removes its data.");
const stop = async () => {
  await ceph.stop();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", stop);
Deno.addSignalListener("SIGTERM", stop);
