// End-to-end: a real Deno.serve on 127.0.0.1 with the router and formData(),
// real fetch clients, and the bodies that go wrong on a network: too large,
// malformed, stalled, aborted mid-upload. After each, the server must still
// answer the next request.

import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createDiskUploadHandler,
  DiskFile,
  formData,
  FormDataParseError,
} from "@fetchkit/toolkit/form-data-middleware";
import { BOUNDARY } from "./_test_utils.ts";

const encoder = new TextEncoder();
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const fileHead = encoder.encode(
  `--${BOUNDARY}\r\nContent-Disposition: form-data; name="upload"; filename="data.bin"\r\n\r\n`,
);
const closing = encoder.encode(`\r\n--${BOUNDARY}--\r\n`);

interface TestServer {
  url: string;
  /** Parse errors seen by the middleware, in order. */
  errors: FormDataParseError[];
  /** Resolves at the next parse error. */
  nextError(): Promise<FormDataParseError>;
  directory: string;
  close(): Promise<void>;
}

async function startServer(
  idleTimeout: number,
  bodyTimeout?: number,
): Promise<TestServer> {
  const directory = await Deno.makeTempDir();
  const errors: FormDataParseError[] = [];
  let waiting: ((error: FormDataParseError) => void) | undefined;
  const router = createRouter();
  router.post(
    "/upload",
    formData({
      idleTimeout,
      bodyTimeout,
      maxFileSize: 1024 * 1024,
      uploadHandler: createDiskUploadHandler({ directory }),
      onError: (error) => {
        errors.push(error);
        waiting?.(error);
        waiting = undefined;
        return new Response(error.message, { status: error.status });
      },
    }),
    async (context) => {
      const file = context.get(FormData)?.get("upload");
      if (!(file instanceof DiskFile)) {
        return new Response("no file", { status: 400 });
      }
      const size = (await file.bytes()).length;
      await Deno.remove(file.path);
      return new Response(`saved ${size}`);
    },
  );
  router.post("/echo", formData(), (context) => {
    return new Response(String(context.get(FormData)?.get("a")));
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}`,
    errors,
    nextError: () => new Promise((resolve) => (waiting = resolve)),
    directory,
    async close() {
      await server.shutdown();
      await Deno.remove(directory, { recursive: true });
    },
  };
}

/** The server still parses a normal form. */
async function assertStillServing(server: TestServer): Promise<void> {
  const response = await fetch(`${server.url}/echo`, {
    method: "POST",
    body: new URLSearchParams({ a: "still here" }),
  });
  assert.equal(response.status, 200);
  assert.equal(await response.text(), "still here");
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("server: a file streamed slowly in small chunks is saved", async () => {
  const server = await startServer(5_000);
  try {
    const chunks = [
      fileHead,
      ...Array.from({ length: 8 }, () => new Uint8Array(1000)),
      closing,
    ];
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        await delay(10);
        const chunk = chunks.shift();
        if (chunk === undefined) controller.close();
        else controller.enqueue(chunk);
      },
    });
    const response = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: { "content-type": MULTIPART },
      body,
    });
    assert.equal(await response.text(), "saved 8000");
    assert.equal(response.status, 200);
    assert.deepEqual(server.errors, []);
    await assertStillServing(server);
  } finally {
    await server.close();
  }
});

Deno.test("server: a malformed body gets 400 and the server goes on", async () => {
  const server = await startServer(5_000);
  try {
    const response = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: { "content-type": MULTIPART },
      body: encoder.encode(
        `--${BOUNDARY}\r\nno colon here\r\n\r\nx\r\n--${BOUNDARY}--`,
      ),
    });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /Bad multipart headers/);
    await assertStillServing(server);
  } finally {
    await server.close();
  }
});

Deno.test("server: an upload over maxFileSize gets 413 while still sending", async () => {
  const server = await startServer(5_000);
  try {
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 8 MiB in all: far more than the 1 MiB limit.
        if (sent === 0) controller.enqueue(fileHead);
        else if (sent <= 128) controller.enqueue(new Uint8Array(65536));
        else controller.close();
        sent++;
      },
    });
    const response = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: { "content-type": MULTIPART },
      body,
    });
    assert.equal(response.status, 413);
    assert.equal(
      await response.text(),
      'File "data.bin" (field "upload") is larger than maxFileSize (1048576 bytes)',
    );
    assert.deepEqual(
      await listDir(server.directory),
      [],
      "the partial file is removed",
    );
    await assertStillServing(server);
  } finally {
    await server.close();
  }
});

Deno.test("server: a client that stalls mid-upload gets 408 after idleTimeout", async () => {
  const server = await startServer(200);
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  try {
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        c.enqueue(fileHead);
        c.enqueue(new Uint8Array(5000)); // then nothing more
      },
    });
    const response = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: { "content-type": MULTIPART },
      body,
    });
    assert.equal(response.status, 408);
    assert.match(
      await response.text(),
      /200 ms \(idleTimeout\) while reading file "data\.bin"/,
    );
    assert.deepEqual(await listDir(server.directory), []);
    await assertStillServing(server);
  } finally {
    try {
      controller?.close();
    } catch {
      // The server already cancelled it.
    }
    await server.close();
  }
});

Deno.test("server: a client that trickles the body gets 408 after bodyTimeout", async () => {
  const server = await startServer(300, 500);
  let sent = 0;
  let stopped = false;
  try {
    // A byte every 50 ms: never idle for 300 ms. Before bodyTimeout this
    // was parsed for as long as the client kept on; the client gives up
    // (and closes the body) after 3 s.
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent === 0) {
          sent++;
          return controller.enqueue(fileHead);
        }
        await delay(50);
        if (stopped || sent++ > 60) {
          controller.enqueue(closing);
          return controller.close();
        }
        controller.enqueue(new Uint8Array(1));
      },
    }, { highWaterMark: 0 });
    const started = performance.now();
    const response = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: { "content-type": MULTIPART },
      body,
    });
    assert.equal(response.status, 408);
    assert.match(
      await response.text(),
      /within 500 ms \(bodyTimeout\) while reading file "data\.bin"/,
    );
    assert.ok(performance.now() - started < 2000);
    assert.deepEqual(await listDir(server.directory), []);
    await assertStillServing(server);
  } finally {
    stopped = true;
    await delay(100);
    await server.close();
  }
});

Deno.test("server: a client that aborts mid-upload leaves no parse or file behind", async () => {
  // idleTimeout only bounds the test if the abort went unnoticed; the
  // assertion below tells the two apart (400 from the abort, not 408).
  const server = await startServer(10_000);
  try {
    const abort = new AbortController();
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (sent++ === 0) return controller.enqueue(fileHead);
        await delay(5);
        controller.enqueue(new Uint8Array(4096));
        if (sent === 20) abort.abort();
      },
    });
    const parseFailed = server.nextError();
    await assert.rejects(
      fetch(`${server.url}/upload`, {
        method: "POST",
        headers: { "content-type": MULTIPART },
        body,
        signal: abort.signal,
      }),
      (error: Error) => error.name === "AbortError",
    );
    const error = await parseFailed;
    assert.ok(error instanceof FormDataParseError);
    assert.equal(error.status, 400);
    assert.equal(error.fileName, "data.bin");
    assert.deepEqual(
      await listDir(server.directory),
      [],
      "the partial file is removed",
    );
    await assertStillServing(server);
  } finally {
    await server.close();
  }
});
