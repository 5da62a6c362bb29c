// Peak memory of a 200 MiB upload over real HTTP: how much the server's
// peak RSS rises while it parses one file, with
//   disk    formData() + createDiskUploadHandler (streams to a temp dir)
//   memory  formData() without a handler (the file is held as a File)
//   native  Deno's Request.formData()
//
//   deno run --allow-all bench/form_data/memory.ts [runs] [MiB]
//
// The server runs in its own process (this file with --server), so the
// client's buffers do not count. Before each request it resets VmHWM
// (/proc/self/clear_refs) and notes RSS; after the parse it reports
// VmHWM - RSS-before. Each mode runs in a fresh server, `runs` times
// (default 3); the median is printed. Exits non-zero when the disk mode
// reaches 32 MiB, the goal for the disk handler.

import { median } from "../_stats.ts";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createDiskUploadHandler,
  DiskFile,
  formData,
} from "@fetchkit/toolkit/form-data-middleware";

const MiB = 1024 * 1024;
const BOUNDARY = "----MemoryBenchBoundary9f8e7d6c5b4a";
const LIMIT = 32 * MiB;
type Mode = "disk" | "memory" | "native";
const MODES: Mode[] = ["disk", "memory", "native"];

function status(): { rss: number; hwm: number } {
  const text = Deno.readTextFileSync("/proc/self/status");
  const kib = (key: string) =>
    Number(new RegExp(`${key}:\\s+(\\d+)`).exec(text)?.[1]) * 1024;
  return { rss: kib("VmRSS"), hwm: kib("VmHWM") };
}

function server(): void {
  const directory = Deno.makeTempDirSync({ prefix: "multipart-memory-" });
  const limits = { maxFileSize: 1024 * MiB, maxTotalSize: 1025 * MiB };
  const gc = (globalThis as { gc?: () => void }).gc;
  let before = 0;
  const router = createRouter({
    middleware: [() => {
      gc?.();
      Deno.writeTextFileSync("/proc/self/clear_refs", "5"); // VmHWM := RSS
      before = status().rss;
    }],
  });
  const report = (size: number) =>
    Response.json({ size, peak: status().hwm - before });
  router.post(
    "/disk",
    formData({
      ...limits,
      uploadHandler: createDiskUploadHandler({ directory }),
    }),
    async (context) => {
      const file = context.get(FormData)?.get("file");
      if (!(file instanceof DiskFile)) throw new Error("no file");
      const response = report(file.size);
      await Deno.remove(file.path);
      return response;
    },
  );
  router.post("/memory", formData(limits), (context) => {
    const file = context.get(FormData)?.get("file");
    if (!(file instanceof File)) throw new Error("no file");
    return report(file.size);
  });
  router.post("/native", async (context) => {
    const file = (await context.request.formData()).get("file");
    if (!(file instanceof File)) throw new Error("no file");
    return report(file.size);
  });
  Deno.addSignalListener("SIGTERM", () => {
    Deno.removeSync(directory, { recursive: true });
    Deno.exit(0);
  });
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(port),
  }, router.fetch);
}

/** A multipart body with one file of `size` bytes, made as it is sent. */
function uploadStream(size: number): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const block = crypto.getRandomValues(new Uint8Array(64 * 1024));
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
  const tail = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);
  let sent = -1;
  return new ReadableStream({
    pull(controller) {
      if (sent === -1) {
        controller.enqueue(head);
        sent = 0;
      } else if (sent < size) {
        const chunk = block.slice(0, Math.min(block.length, size - sent));
        controller.enqueue(chunk);
        sent += chunk.length;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  }, { highWaterMark: 0 });
}

async function measure(mode: Mode, size: number): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--v8-flags=--expose-gc",
      new URL(import.meta.url).pathname,
      "--server",
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream())
      .getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("server exited before listening");
      line += value;
    }
    // The port is all we need from the server's stdout.
    await reader.cancel();
    const port = Number(line.trim());
    const response = await fetch(`http://127.0.0.1:${port}/${mode}`, {
      method: "POST",
      headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
      body: uploadStream(size),
    });
    const result = await response.json();
    if (result.size !== size) {
      throw new Error(`${mode}: got ${JSON.stringify(result)}`);
    }
    return result.peak;
  } finally {
    child.kill("SIGTERM");
    await child.status;
  }
}

async function main(runs: number, sizeMiB: number): Promise<void> {
  const size = sizeMiB * MiB;
  const results = new Map<Mode, number[]>(MODES.map((mode) => [mode, []]));
  for (let run = 0; run < runs; run++) {
    for (const mode of MODES) {
      results.get(mode)!.push(await measure(mode, size));
    }
  }
  console.log(
    `| ${sizeMiB} MiB upload over HTTP | peak RSS increase (median of ${runs}) | runs |`,
  );
  console.log("|---|--:|---|");
  const labels: Record<Mode, string> = {
    disk: "`formData()` + `createDiskUploadHandler()`",
    memory: "`formData()`, file kept in memory",
    native: "Deno `Request.formData()`",
  };
  for (const mode of MODES) {
    const values = results.get(mode)!;
    console.log(
      `| ${labels[mode]} | ${(median(values) / MiB).toFixed(1)} MiB | ${
        values.map((v) => (v / MiB).toFixed(1)).join(", ")
      } |`,
    );
  }
  const disk = median(results.get("disk")!);
  if (disk >= LIMIT) {
    console.error(
      `disk mode peak ${(disk / MiB).toFixed(1)} MiB is not below 32 MiB`,
    );
    Deno.exit(1);
  }
}

if (Deno.args[0] === "--server") {
  server();
} else {
  await main(Number(Deno.args[0] ?? 3), Number(Deno.args[1] ?? 200));
}
