// createS3FileStorage against a gateway that misbehaves after its headers
// (a node:net server on loopback, no Ceph needed): a body that stalls or
// never ends is bounded by the storage's timeout and by a size cap, for
// errors and listings alike. Portable: node: APIs only, so it also runs
// on Node and Bun through _tools/runtimes/.
import assert from "node:assert/strict";
import { createServer, type Socket } from "node:net";
import { createS3FileStorage, S3Error } from "@fetchkit/toolkit/file-storage";
import { StoreUnavailableError } from "@fetchkit/toolkit/store";

type Behaviour = (socket: Socket, head: string) => void;

/** A gateway on loopback that answers every request with `behaviour`. */
async function gateway(behaviour: Behaviour) {
  const sockets = new Set<Socket>();
  let written = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let seen = "";
    socket.on("data", (chunk) => {
      seen += chunk.toString("latin1");
      // One answer per request, once its headers are in.
      if (seen.includes("\r\n\r\n")) {
        const head = seen;
        seen = "";
        behaviour(socket, head);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    storage: createS3FileStorage({
      endpoint: `http://127.0.0.1:${port}`,
      bucket: "stall",
      region: "us-east-1",
      accessKeyId: "key",
      secretAccessKey: "secret",
      forcePathStyle: true,
      timeout: 500,
    }),
    count(bytes: number) {
      written += bytes;
    },
    get written() {
      return written;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** `promise`, or a failure when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still pending after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Headers, then part of the body, then nothing. */
function stallAfter(status: string, start: string): Behaviour {
  return (socket) => {
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Type: application/xml\r\n` +
        `Content-Length: 100000\r\n\r\n${start}`,
    );
  };
}

/** Headers, then a chunked body that never ends. */
function endless(
  status: string,
  start: string,
  count: (bytes: number) => void,
): Behaviour {
  return (socket) => {
    socket.write(
      `HTTP/1.1 ${status}\r\nContent-Type: application/xml\r\n` +
        `Transfer-Encoding: chunked\r\n\r\n`,
    );
    const filler = "<x>" + "a".repeat(64 * 1024 - 7) + "</x>";
    const chunk = `${filler.length.toString(16)}\r\n${filler}\r\n`;
    socket.write(`${start.length.toString(16)}\r\n${start}\r\n`);
    const pump = () => {
      while (!socket.destroyed && socket.write(chunk)) count(filler.length);
      if (!socket.destroyed) count(filler.length);
    };
    socket.on("drain", pump);
    pump();
  };
}

Deno.test("S3 storage: an error body that stalls ends at the timeout", async () => {
  const server = await gateway(
    stallAfter("403 Forbidden", "<Error><Code>AccessDenied</Code>"),
  );
  try {
    const started = Date.now();
    await within(
      assert.rejects(() => server.storage.list(), (error: unknown) => {
        assert.ok(error instanceof S3Error, String(error));
        assert.equal(error.s3Status, 403);
        return true;
      }),
      5000,
      "list() with a stalled error body",
    );
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
  } finally {
    await server.close();
  }
});

Deno.test("S3 storage: a listing that stalls is an outage after the timeout", async () => {
  const server = await gateway(
    stallAfter("200 OK", "<ListBucketResult><Contents><Key>a</Key>"),
  );
  try {
    await within(
      assert.rejects(() => server.storage.list(), (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError, String(error));
        assert.match(
          error.message,
          /S3 did not finish answering within 500 ms \(list\)/,
        );
        return true;
      }),
      5000,
      "list() with a stalled listing",
    );
  } finally {
    await server.close();
  }
});

Deno.test("S3 storage: error and listing bodies that never end are cut at a cap", async () => {
  let written = 0;
  const count = (bytes: number) => void (written += bytes);
  const error = await gateway(
    endless("403 Forbidden", "<Error><Code>AccessDenied</Code>", count),
  );
  try {
    await within(
      assert.rejects(() => error.storage.remove("x"), S3Error),
      5000,
      "an endless error body",
    );
    // The cap is 64 KiB; the socket's buffers hold some more.
    assert.ok(written < 16 * 1024 * 1024, `${written} bytes sent`);
  } finally {
    await error.close();
  }
  const listing = await gateway(
    endless("200 OK", "<ListBucketResult>", () => {}),
  );
  try {
    await within(
      assert.rejects(() => listing.storage.list(), (error: unknown) => {
        assert.ok(
          error instanceof S3Error || error instanceof StoreUnavailableError,
          String(error),
        );
        assert.match(
          (error as Error).message,
          /answer to list is over|did not finish answering/,
        );
        return true;
      }),
      8000,
      "an endless listing",
    );
  } finally {
    await listing.close();
  }
});

Deno.test("S3 storage: a file whose bytes stop coming errors after the timeout, never hangs the reader", async () => {
  const server = await gateway((socket, head) => {
    if (head.startsWith("HEAD ")) {
      socket.write(
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n" +
          'Content-Length: 100000\r\nETag: "e"\r\n\r\n',
      );
    } else {
      // The first bytes, then silence.
      socket.write(
        "HTTP/1.1 206 Partial Content\r\nContent-Length: 100000\r\n" +
          'Content-Range: bytes 0-99999/100000\r\nETag: "e"\r\n\r\n' +
          "x".repeat(1000),
      );
    }
  });
  try {
    const file = await within(server.storage.get("big.bin"), 5000, "get()");
    assert.equal(file?.size, 100000);
    const started = Date.now();
    await within(
      assert.rejects(() => file!.text(), (error: unknown) => {
        assert.ok(error instanceof StoreUnavailableError, String(error));
        assert.match(
          error.message,
          /S3 sent nothing for 500 ms while reading "big.bin"/,
        );
        return true;
      }),
      5000,
      "reading a stalled file",
    );
    assert.ok(Date.now() - started < 3000, `${Date.now() - started} ms`);
  } finally {
    await server.close();
  }
});
