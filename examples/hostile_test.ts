// Hostile HTTP against the example apps, over raw sockets (see
// _tools/hostile.ts). Every case must end with a clear 4xx, or a closed
// connection where HTTP allows no answer; never a 5xx, never a hang. While
// the cases run, a probe keeps fetching a page: other clients are served.
// Afterwards: no temporary upload file left behind by a failed upload, and
// the app's RSS back within a margin of its RSS after warm-up.

import assert from "node:assert/strict";
import {
  EXAMPLE_APPS,
  type ExampleApp,
  probe,
  raw,
  type RawResult,
  startApp,
} from "../_tools/hostile.ts";
import { concat } from "../form_data/_test_utils.ts";

const BOUNDARY = "hostileBoundary";
const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

function head(
  method: string,
  target: string,
  headers: Record<string, string | number> = {},
): string {
  // Connection: close, so that each exchange ends when the server is done.
  let text =
    `${method} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    text += `${name}: ${value}\r\n`;
  }
  return text + "\r\n";
}

function multipart(
  name: string,
  filename: Uint8Array | string,
  content: string,
) {
  const encoder = new TextEncoder();
  const fileName = typeof filename === "string"
    ? encoder.encode(filename)
    : filename;
  const parts = [
    encoder.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\n`,
    ),
    new Uint8Array([0x41, 0xff, 0xfe, 0xc3, 0x28]), // invalid UTF-8 value
    encoder.encode(
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="`,
    ),
    fileName,
    encoder.encode(
      `"\r\nContent-Type: text/plain\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`,
    ),
  ];
  return concat(parts);
}

interface Case {
  name: string;
  run(app: ExampleApp, port: number): Promise<RawResult>;
  /** Accepted outcomes besides a 4xx or a closed connection. */
  ok?: (result: RawResult) => boolean;
  /** A successful upload that leaves a file on purpose. */
  uploads?: boolean;
}

const cases: Case[] = [
  {
    name: "oversized header block (128 KiB)",
    run: (app, port) =>
      raw(
        port,
        (w) => w(head("GET", app.probe, { "X-Big": "a".repeat(128 * 1024) })),
      ),
  },
  {
    name: "oversized body (Content-Length 1 GiB)",
    run: (app, port) =>
      raw(port, async (w) => {
        await w(head("POST", app.form, {
          "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
          "Content-Length": 1024 ** 3,
        }));
        await w("x".repeat(64 * 1024));
      }),
  },
  {
    name: "large file streamed without Content-Length (chunked, 6 MiB)",
    run: (app, port) =>
      raw(port, async (w) => {
        await w(head("POST", app.form, {
          "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
          "Transfer-Encoding": "chunked",
        }));
        const start =
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="big.bin"\r\n\r\n`;
        await w(`${start.length.toString(16)}\r\n${start}\r\n`);
        const block = "z".repeat(64 * 1024);
        for (let i = 0; i < 96; i++) {
          await w(`${block.length.toString(16)}\r\n${block}\r\n`);
        }
        const end = `\r\n--${BOUNDARY}--\r\n`;
        await w(`${end.length.toString(16)}\r\n${end}\r\n0\r\n\r\n`);
      }, 10_000),
    // 6 MiB: over the uploads app's 5 MiB limit (413); the resources app
    // keeps it under its 10 MiB default and ignores the file (201).
    ok: (r) => r.status !== undefined && r.status < 500,
    // The resources app keeps fields only (maxFileSize 10 MiB default): it
    // may refuse (413) or the server may stop reading; uploads has 5 MiB.
  },
  {
    name: "body cut off mid-stream (Content-Length 4096, 100 bytes sent)",
    run: (app, port) =>
      raw(port, async (w) => {
        await w(head("POST", app.form, {
          "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
          "Content-Length": 4096,
        }));
        await w(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="cut.txt"\r\n\r\n` +
            "partial",
        );
        // The client gives up: closing without the rest of the body.
      }, 500),
    // The client hung up first: no answer is owed.
    ok: (r) => r.timedOut || r.closed || (r.status ?? 0) < 500,
  },
  {
    name: "slow body, one byte every 150 ms, then completed",
    run: (app, port) =>
      raw(port, async (w) => {
        const body = `title=slow&body=${"s".repeat(5)}`;
        await w(head("POST", app.form, {
          "Content-Type": "application/x-www-form-urlencoded",
          "Content-Length": body.length,
        }));
        for (const byte of body.slice(0, 10)) {
          await w(byte);
          await delay(150);
        }
        await w(body.slice(10));
      }, 10_000),
    ok: (r) => r.status !== undefined && r.status < 500,
  },
  {
    name: "wrong content type (text/plain body)",
    run: (app, port) =>
      raw(port, (w) =>
        w(
          head("POST", app.form, {
            "Content-Type": "text/plain",
            "Content-Length": 9,
          }) + "title=abc",
        )),
    // Not a form: parsed as an empty form, as missing fields are read (an empty string).
    ok: (r) => r.status !== undefined && r.status < 500,
  },
  {
    name: "multipart without a boundary",
    run: (app, port) =>
      raw(port, (w) =>
        w(
          head("POST", app.form, {
            "Content-Type": "multipart/form-data",
            "Content-Length": 5,
          }) + "hello",
        )),
  },
  {
    name: "missing content type",
    run: (app, port) =>
      raw(port, (w) =>
        w(
          head("POST", app.form, {
            "Content-Length": 5,
          }) + "hello",
        )),
    ok: (r) => r.status !== undefined && r.status < 500,
  },
  {
    name: "invalid UTF-8 in a field and a file name",
    uploads: true,
    run: (app, port) => {
      const body = multipart(
        "files",
        new Uint8Array([0x62, 0xff, 0x2e, 0x74, 0x78, 0x74]),
        "content",
      );
      return raw(port, async (w) => {
        await w(head("POST", app.form, {
          "Content-Type": `multipart/form-data; boundary=${BOUNDARY}`,
          "Content-Length": body.length,
        }));
        await w(body);
      });
    },
    // Decoded with U+FFFD, as browsers and Deno do: accepted.
    ok: (r) => r.status !== undefined && r.status < 500,
  },
  {
    name: "duplicate Cookie headers",
    run: (app, port) =>
      raw(port, (w) =>
        w(
          `GET ${app.probe} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: a=1; __session=x\r\n` +
            "Cookie: __session=y; session=z\r\nConnection: close\r\n\r\n",
        )),
    ok: (r) => r.status === 200,
  },
  {
    name: "huge Cookie header (60 KiB)",
    run: (app, port) =>
      raw(port, (w) =>
        w(head("GET", app.probe, {
          Cookie: `session=${"c".repeat(60 * 1024)}`,
        }))),
    ok: (r) => r.status === 200,
  },
  ...[
    "/../../etc/passwd",
    "/%2e%2e/%2e%2e/etc/passwd",
    "/posts/%00",
    "/posts/..%2f..%2fetc",
    "/%00/../x",
  ]
    .map((target): Case => ({
      name: `path traversal ${target}`,
      run: (_app, port) =>
        raw(port, (w) => w(head("GET", target, { Connection: "close" }))),
    })),
  {
    name: "method override on GET (?_method=DELETE)",
    run: (app, port) =>
      raw(
        port,
        (w) => w(head("GET", `${app.probe}?_method=DELETE`, {})),
      ),
    // A GET stays a GET: the page is served, nothing deleted.
    ok: (r) => r.status === 200,
  },
  ...["CONNECT", "TRACE", "TRACK", "GARBAGE\x01"].map((method): Case => ({
    name: `method override to ${JSON.stringify(method)}`,
    run: (app, port) => {
      const body = `_method=${encodeURIComponent(method)}`;
      return raw(port, (w) =>
        w(
          head("POST", app.form, {
            "Content-Type": "application/x-www-form-urlencoded",
            "Content-Length": body.length,
          }) + body,
        ));
    },
    // Only PUT, PATCH and DELETE may be asked for; anything else is ignored
    // and the request stays a POST (201/303): never run as CONNECT/TRACE.
    ok: (r) => r.status !== undefined && r.status < 500,
  })),
  {
    name: "TRACE and CONNECT requests",
    run: async (app, port) => {
      const trace = await raw(
        port,
        (w) => w(head("TRACE", app.probe, { Connection: "close" })),
      );
      if (
        trace.status !== undefined && trace.status < 500 && trace.status >= 400
      ) {
        return raw(
          port,
          (w) =>
            w("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n"),
        );
      }
      return trace;
    },
  },
  {
    name: "request smuggling: Content-Length and Transfer-Encoding together",
    run: (app, port) =>
      raw(port, (w) =>
        w(
          `POST ${app.form} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4\r\n` +
            "Transfer-Encoding: chunked\r\nContent-Type: application/x-www-form-urlencoded\r\n\r\n" +
            "0\r\n\r\nGET /admin HTTP/1.1\r\nHost: x\r\n\r\n",
        )),
    // hyper drops Content-Length and reads chunked, then serves the second
    // request (404 or 200); what matters is no desync 5xx.
    ok: (r) => r.status !== undefined && r.status < 500,
  },
  {
    name: "garbage request line",
    run: (_app, port) =>
      raw(port, (w) => w("\x16\x03\x01\x02\x00\x01\x00\r\n\r\n")),
  },
];

for (const app of EXAMPLE_APPS) {
  Deno.test({
    name: `hostile HTTP: examples/${app.name}`,
    sanitizeResources: false,
    sanitizeOps: false,
    async fn(t) {
      await using running = await startApp(app);
      const { port } = running;
      for (let i = 0; i < 100; i++) {
        assert.equal(await probe(port, app.probe), 200);
      }
      const baseline = await running.rss();

      // A probe keeps running through every case: others are served.
      let probing = true;
      let probes = 0;
      const probeFailures: string[] = [];
      const prober = (async () => {
        while (probing) {
          try {
            const status = await probe(port, app.probe);
            if (status !== 200) probeFailures.push(`status ${status}`);
            probes++;
          } catch (error) {
            probeFailures.push(String(error));
          }
          await delay(20);
        }
      })();

      const outcomes: string[] = [];
      let uploads = 0;
      for (const hostile of cases) {
        await t.step(hostile.name, async () => {
          const result = await hostile.run(app, port);
          const outcome = result.status !== undefined
            ? String(result.status)
            : result.closed
            ? "closed"
            : "timeout";
          outcomes.push(`${hostile.name}: ${outcome}`);
          if (hostile.uploads && result.status === 303) uploads++;
          const clear = (result.status !== undefined &&
            result.status >= 400 && result.status < 500) ||
            (result.status === undefined && result.closed);
          assert.ok(
            clear || hostile.ok?.(result),
            `${hostile.name}: ${outcome} ${result.text.slice(0, 200)}`,
          );
          assert.ok(
            result.status === undefined || result.status < 500,
            `${hostile.name}: a 5xx`,
          );
        });
      }

      await t.step("200 connections that never finish a request", async () => {
        const idle: Deno.Conn[] = [];
        for (let i = 0; i < 200; i++) {
          const connection = await Deno.connect({
            hostname: "127.0.0.1",
            port,
          });
          await connection.write(
            new TextEncoder().encode(
              `GET ${app.probe} HTTP/1.1\r\nHost: x\r\nX-Slow: `,
            ),
          );
          idle.push(connection);
        }
        // Others are still served while they hang on.
        const started = performance.now();
        for (let i = 0; i < 20; i++) {
          assert.equal(await probe(port, app.probe), 200);
        }
        const ms = performance.now() - started;
        for (const connection of idle) connection.close();
        outcomes.push(
          `200 idle connections: 20 probes served in ${Math.round(ms)} ms`,
        );
      });

      probing = false;
      await prober;
      assert.deepEqual(
        probeFailures,
        [],
        "other clients were served throughout",
      );

      if (app.name === "uploads") {
        await t.step("no temporary file left by failed uploads", async () => {
          const line = running.output.find((l) =>
            l.startsWith("Uploads are saved in ")
          );
          assert.ok(line, "the app prints its upload directory");
          const directory = line.slice("Uploads are saved in ".length).trim();
          // Give aborted uploads a moment to remove their files.
          let files: string[] = [];
          for (let i = 0; i < 20; i++) {
            files = [];
            for await (const entry of Deno.readDir(directory)) {
              files.push(entry.name);
            }
            if (files.length === uploads) break;
            await delay(100);
          }
          assert.equal(
            files.length,
            uploads,
            `files left: ${files.join(", ")}`,
          );
        });
      }

      // Memory: back within a margin of the warm-up figure once the load is
      // gone (V8 frees lazily: a few rounds of ordinary requests let it).
      let after = 0;
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 50; i++) await probe(port, app.probe);
        await delay(200);
        after = await running.rss();
        if (after <= baseline + 48 * 1024 * 1024) break;
      }
      const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
      outcomes.push(
        `RSS after warm-up ${mb(baseline)} MiB, after the cases ${
          mb(after)
        } MiB; ${probes} probes, all 200`,
      );
      if (Deno.env.get("HOSTILE_REPORT")) console.log(outcomes.join("\n"));
      assert.ok(
        after <= baseline + 48 * 1024 * 1024,
        `RSS ${mb(after)} MiB vs ${mb(baseline)} MiB after warm-up`,
      );
    },
  });
}
