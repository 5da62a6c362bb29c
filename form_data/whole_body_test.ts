// The whole-body read of small urlencoded forms (`whole_body.ts`): bodies
// that declare a Content-Length of at most 64 KiB are read in one go, with
// the same limits, errors and timeouts as the chunked path.

import assert from "node:assert/strict";
import {
  FormDataParseError,
  FormDataTimeoutError,
  MaxTotalSizeExceededError,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";

const encoder = new TextEncoder();
const URLENCODED = "application/x-www-form-urlencoded";

function declaredRequest(
  body: ReadableStream<Uint8Array> | string,
  declared: number,
): Request {
  return new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": URLENCODED, "content-length": String(declared) },
    body,
  });
}

/** A stream that gives `chunks`, waiting `gap` ms before each. */
function slowStream(chunks: string[], gap: number): ReadableStream<Uint8Array> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((resolve) => timer = setTimeout(resolve, gap));
      const chunk = chunks.shift();
      if (chunk === undefined) controller.close();
      else controller.enqueue(encoder.encode(chunk));
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

Deno.test("a declared small body parses as the chunked path does", async () => {
  const body = "a=1&b=two+words&c=%C3%A9&d&=e&a=again";
  const whole = await parseFormData(declaredRequest(body, body.length));
  const chunked = await parseFormData(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": URLENCODED },
      body,
    }),
  );
  assert.deepEqual([...whole], [...chunked]);
  assert.deepEqual([...whole], [
    ["a", "1"],
    ["b", "two words"],
    ["c", "é"],
    ["d", ""],
    ["", "e"],
    ["a", "again"],
  ]);
});

Deno.test("a body longer than declared still cannot pass maxTotalSize", async () => {
  // An in-process Request may lie; Deno.serve stops a body at its length.
  const big = "x=" + "y".repeat(5000);
  const error = await parseFormData(declaredRequest(big, 10), {
    maxTotalSize: 1000,
  }).then(() => null, (error) => error);
  assert.ok(error instanceof MaxTotalSizeExceededError, String(error));
  assert.equal(error.status, 413);
  assert.match(error.message, /1000/);
});

Deno.test("field limits hold on the whole-body path", async () => {
  const body = "a=1&b=2&c=3";
  await assert.rejects(
    parseFormData(declaredRequest(body, body.length), { maxFields: 2 }),
    (error: unknown) =>
      error instanceof FormDataParseError && error.status === 413 &&
      /maxFields|fields/.test(error.message),
  );
  const long = "a=" + "z".repeat(100);
  await assert.rejects(
    parseFormData(declaredRequest(long, long.length), { maxFieldSize: 50 }),
    (error: unknown) =>
      error instanceof FormDataParseError && error.status === 413,
  );
});

Deno.test("a small body must arrive in full within idleTimeout", async () => {
  // Bytes every 40 ms, never idle for 100 ms, but 200 ms in all: on the
  // whole-body path that is a 408 naming idleTimeout.
  const body = slowStream(["a=1", "&b=2", "&c=3", "&d=4", "&e=5"], 40);
  const error = await parseFormData(declaredRequest(body, 19), {
    idleTimeout: 100,
  }).then(() => null, (error) => error);
  assert.ok(error instanceof FormDataTimeoutError, String(error));
  assert.equal(error.status, 408);
  assert.equal(error.limit, "idleTimeout");
  assert.equal(error.timeout, 100);
});

Deno.test("a shorter bodyTimeout is the one that applies, and named", async () => {
  const body = slowStream(["a=1", "&b=2"], 100);
  const error = await parseFormData(declaredRequest(body, 7), {
    idleTimeout: 1000,
    bodyTimeout: 50,
  }).then(() => null, (error) => error);
  assert.ok(error instanceof FormDataTimeoutError, String(error));
  assert.equal(error.limit, "bodyTimeout");
  assert.match(error.message, /within 50 ms \(bodyTimeout\)/);
});

Deno.test("a body stream that fails is a 400 naming the cause", async () => {
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      controller.error(new Error("connection reset"));
    },
  });
  const error = await parseFormData(declaredRequest(body, 10)).then(
    () => null,
    (error) => error,
  );
  assert.ok(error instanceof FormDataParseError, String(error));
  assert.equal(error.status, 400);
  assert.match(error.message, /failed before the form was complete/);
  assert.equal((error.cause as Error).message, "connection reset");
});

Deno.test("through Deno.serve: a short form is parsed, a stalled one gets 408", async () => {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (request) => {
      try {
        const form = await parseFormData(request, { idleTimeout: 150 });
        return new Response(JSON.stringify([...form]));
      } catch (error) {
        const status = error instanceof FormDataParseError ? error.status : 500;
        return new Response(String(error), { status });
      }
    },
  );
  try {
    const ok = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      method: "POST",
      headers: { "content-type": URLENCODED },
      body: "name=Ada&role=admin",
    });
    assert.equal(await ok.text(), '[["name","Ada"],["role","admin"]]');

    const connection = await Deno.connect({
      hostname: "127.0.0.1",
      port: server.addr.port,
    });
    try {
      await connection.write(encoder.encode(
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Type: " + URLENCODED +
          "\r\nContent-Length: 50\r\n\r\na=1&b=",
      ));
      const buffer = new Uint8Array(4096);
      const read = await connection.read(buffer);
      const answer = new TextDecoder().decode(buffer.subarray(0, read ?? 0));
      assert.match(answer, /^HTTP\/1\.1 408 /);
      assert.match(answer, /150 ms \(idleTimeout\)/);
    } finally {
      connection.close();
    }
  } finally {
    await server.shutdown();
  }
});
