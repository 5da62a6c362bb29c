/**
 * Memory of a running server for the soak: RSS and its anonymous and
 * file-backed parts and the thread count from `/proc/<pid>/status`
 * (Linux), and, for a server started with `--inspect`, V8's heap as
 * `Deno.memoryUsage()` gives it inside that process (read over the
 * inspector's WebSocket with `Runtime.evaluate`).
 *
 * @module
 */

/** One reading. Heap fields only with a heap reader. */
export interface MemorySample {
  rss: number;
  /** Anonymous memory: heaps (V8's, malloc's), stacks. */
  anon: number;
  /** File-backed memory: the binary, libraries, mapped files. */
  file: number;
  threads: number;
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
}

/** Reads `Deno.memoryUsage()` inside the inspected process. */
export interface HeapReader {
  read(): Promise<{ heapUsed: number; heapTotal: number; external: number }>;
  /** Closes the inspector connection (an open one keeps the soak alive). */
  close(): void;
}

/** Reads `/proc/<pid>/status`, and the heap when `heap` is given. */
export async function memorySample(
  pid: number,
  heap?: HeapReader,
): Promise<MemorySample> {
  const status = await Deno.readTextFile(`/proc/${pid}/status`);
  const kib = (name: string) =>
    Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  const sample: MemorySample = {
    rss: kib("VmRSS"),
    anon: kib("RssAnon"),
    file: kib("RssFile") + kib("RssShmem"),
    threads: Number(/Threads:\s+(\d+)/.exec(status)?.[1] ?? 0),
  };
  return heap === undefined ? sample : { ...sample, ...await heap.read() };
}

/**
 * Connects to the inspector on `port` (retrying while it starts) and
 * returns a reader of the process's `Deno.memoryUsage()`.
 */
export async function heapReader(port: number): Promise<HeapReader> {
  let url: string | undefined;
  for (let tries = 0; url === undefined && tries < 100; tries++) {
    try {
      const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`))
        .json() as { webSocketDebuggerUrl: string }[];
      url = targets[0]?.webSocketDebuggerUrl;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  if (url === undefined) throw new Error(`no inspector on port ${port}`);
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  let id = 0;
  const waiting = new Map<number, (value: unknown) => void>();
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    waiting.get(message.id)?.(message.result);
    waiting.delete(message.id);
  };
  return {
    close: () => socket.close(),
    async read() {
      const sent = ++id;
      const result = await new Promise<unknown>((resolve) => {
        waiting.set(sent, resolve);
        socket.send(JSON.stringify({
          id: sent,
          method: "Runtime.evaluate",
          params: {
            expression: "JSON.stringify(Deno.memoryUsage())",
            returnByValue: true,
          },
        }));
      }) as { result: { value: string } };
      return JSON.parse(result.result.value);
    },
  };
}
