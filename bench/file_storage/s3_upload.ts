/**
 * S3 upload throughput and server memory: one multipart/form-data upload of
 * 64 MiB and of 1 GiB streamed through `formData()` into a bucket of a real
 * S3 server (Ceph's RADOS Gateway on memstore, `_tools/ceph.ts`), by
 *
 * - `fetchkit`: `createStorageUploadHandler(createS3FileStorage(...))`;
 * - `aws4fetch`: the same `formData()` parsing, with an upload handler that
 *   sends the multipart upload by hand through `aws4fetch`'s `AwsClient`
 *   (its own SigV4), parts of the same size, one at a time;
 * - `drain`: the same parsing, the bytes dropped: the floor.
 *
 * Each server runs in a process of its own (`file_storage/testdata/
 * upload_server.ts`), warmed up by one 32 MiB upload; its peak RSS during
 * the measured upload (VmHWM, reset through /proc/<pid>/clear_refs) minus
 * its RSS before is the growth. Contenders are interleaved, ROUNDS rounds
 * (default 3); medians are printed. Linux only.
 *
 * `deno run --allow-all bench/file_storage/s3_upload.ts`
 * (`SIZES=64` for the 64 MiB case only; `PART_SIZE` in MiB, default 8.)
 *
 * @module
 */
import { startCeph } from "../../_tools/ceph.ts";
import {
  measureUpload,
  startUploadServer,
} from "../../file_storage/_test_upload_client.ts";
import { median } from "../_stats.ts";

const MIB = 1024 * 1024;
const rounds = Number(Deno.env.get("ROUNDS") ?? 3);
const sizes = (Deno.env.get("SIZES") ?? "64,1024").split(",").map(Number);
const partSize = Number(Deno.env.get("PART_SIZE") ?? 8) * MIB;
const modes = ["fetchkit", "aws4fetch", "drain"] as const;

const ceph = await startCeph({ memstoreBytes: 8 * 1024 * MIB });
try {
  await ceph.createBucket("bench");
  const results = new Map<string, { mibs: number[]; growth: number[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const size of sizes) {
      // A different order each round, so no contender always goes first.
      const order = modes.map((_, i) => modes[(i + round) % modes.length]);
      for (const mode of order) {
        const server = await startUploadServer(ceph, "bench", mode, partSize);
        try {
          await measureUpload(server, 32 * MIB);
          const run = await measureUpload(server, size * MIB);
          if (run.status !== 200) throw new Error(`${mode}: ${run.body}`);
          const key = `${mode} ${size}`;
          const entry = results.get(key) ?? { mibs: [], growth: [] };
          entry.mibs.push(size / (run.ms / 1000));
          entry.growth.push(run.growth / MIB);
          results.set(key, entry);
          console.error(
            `round ${round + 1} ${key} MiB: ${
              (size / (run.ms / 1000)).toFixed(1)
            } MiB/s, RSS +${(run.growth / MIB).toFixed(1)} MiB`,
          );
        } finally {
          await server.stop();
        }
      }
    }
  }
  const uploads = await ceph.listMultipartUploads("bench");
  console.log(
    `\nParts of ${partSize / MIB} MiB, ${rounds} rounds, medians (spread):\n`,
  );
  console.log("| upload | contender | MiB/s | server RSS growth (MiB) |");
  console.log("| ------ | --------- | ----- | ----------------------- |");
  for (const size of sizes) {
    for (const mode of modes) {
      const { mibs, growth } = results.get(`${mode} ${size}`)!;
      const range = (values: number[]) =>
        `${Math.min(...values).toFixed(1)}-${Math.max(...values).toFixed(1)}`;
      console.log(
        `| ${size === 1024 ? "1 GiB" : `${size} MiB`} | ${mode} | ${
          median(mibs).toFixed(1)
        } (${range(mibs)}) | ${median(growth).toFixed(1)} (${range(growth)}) |`,
      );
    }
  }
  console.log(`\nmultipart uploads left open: ${uploads.length}`);
} finally {
  await ceph.stop();
}
