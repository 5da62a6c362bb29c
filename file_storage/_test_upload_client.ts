// Drives testdata/upload_server.ts in a process of its own: starts it,
// sends it one multipart upload of N bytes made on the fly, and reads the
// server's memory from /proc (Linux): VmRSS before, and VmHWM (peak RSS)
// after, reset just before the upload through /proc/<pid>/clear_refs.
// Deno-only (Deno.Command); used by s3_memory_test.ts and the benchmark.
import type { Ceph } from "../_tools/ceph.ts";

const SERVER = new URL("./testdata/upload_server.ts", import.meta.url)
  .pathname;

/** A started upload server. */
export interface UploadServer {
  pid: number;
  url: string;
  stop(): Promise<void>;
}

/** Starts the server in `mode` against `bucket` of `ceph`. */
export async function startUploadServer(
  ceph: Ceph,
  bucket: string,
  mode: "fetchkit" | "aws4fetch" | "drain",
  partSize: number,
): Promise<UploadServer> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", SERVER],
    env: {
      MODE: mode,
      PART_SIZE: String(partSize),
      S3_ENDPOINT: ceph.endpoint,
      S3_BUCKET: bucket,
      S3_REGION: ceph.region,
      S3_ACCESS_KEY_ID: ceph.accessKeyId,
      S3_SECRET_ACCESS_KEY: ceph.secretAccessKey,
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!/listening (\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`upload server did not start: ${text}`);
    text += value;
  }
  // Keep reading so the pipe never fills.
  (async () => {
    while (!(await reader.read()).done);
  })();
  const port = /listening (\d+)/.exec(text)![1];
  return {
    pid: child.pid,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
    },
  };
}

function status(pid: number): { rss: number; hwm: number } {
  const text = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kib = (name: string) =>
    Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(text)![1]) * 1024;
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

/** What one upload took. */
export interface UploadRun {
  /** Bytes of the file. */
  size: number;
  /** Milliseconds from the first byte sent to the answer. */
  ms: number;
  /** Peak RSS during the upload minus RSS before it, in bytes. */
  growth: number;
  /** The server's answer. */
  status: number;
  body: string;
}

/** Uploads `size` bytes to `server` as field "file"; measures it. */
export async function measureUpload(
  server: UploadServer,
  size: number,
): Promise<UploadRun> {
  const boundary = "----fetchkitbench" + crypto.randomUUID();
  const encoder = new TextEncoder();
  const head = encoder.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${boundary}--\r\n`);
  // The same bytes every chunk, so one buffer serves the whole body.
  const chunk = new Uint8Array(256 * 1024).map((_, i) => (i * 31 + 7) & 255);
  let sent = 0;
  let stage = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (stage === 0) {
        stage = 1;
        return controller.enqueue(head);
      }
      if (stage === 1) {
        if (sent < size) {
          const n = Math.min(chunk.length, size - sent);
          sent += n;
          return controller.enqueue(
            n === chunk.length ? chunk : chunk.subarray(0, n),
          );
        }
        stage = 2;
        return controller.enqueue(tail);
      }
      controller.close();
    },
  });
  // Peak RSS from now on.
  Deno.writeTextFileSync(`/proc/${server.pid}/clear_refs`, "5");
  const before = status(server.pid).rss;
  const started = performance.now();
  const response = await fetch(`${server.url}/upload`, {
    method: "POST",
    body,
    headers: { "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const after = status(server.pid);
  return {
    size,
    ms,
    growth: after.hwm - before,
    status: response.status,
    body: text,
  };
}
