import assert from "node:assert/strict";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import {
  serveStatic,
  type ServeStaticOptions,
} from "@fetchkit/toolkit/static-middleware";
import { type Fixture, makeFixture } from "./_test_fixture.ts";

const fixture: Fixture = await makeFixture();
// Removed when the test process exits: Deno.test has no afterAll.
globalThis.addEventListener("unload", () => {
  Deno.removeSync(fixture.dir, { recursive: true });
});

function app(options: Partial<ServeStaticOptions> = {}): Router {
  const router = createRouter({
    middleware: [serveStatic({ root: fixture.root, ...options })],
  });
  router.get("/route", () => new Response("from a route"));
  router.get("/missing.txt", () => new Response("route after static"));
  return router;
}

function get(
  router: Router,
  path: string,
  init: RequestInit = {},
): Promise<Response> {
  return Promise.resolve(
    router.fetch(new Request(`http://localhost${path}`, init)),
  );
}

Deno.test("serveStatic streams a file with type, length, validators and caching", async () => {
  const response = await get(app({ maxAge: 60 }), "/app.css");
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "text/css; charset=utf-8");
  assert.equal(response.headers.get("Content-Length"), "14");
  assert.equal(response.headers.get("Cache-Control"), "public, max-age=60");
  assert.equal(response.headers.get("Accept-Ranges"), "bytes");
  const { mtime, size } = await Deno.stat(`${fixture.root}/app.css`);
  assert.equal(response.headers.get("Last-Modified"), mtime!.toUTCString());
  assert.equal(
    response.headers.get("ETag"),
    `"${mtime!.getTime().toString(16)}-${size.toString(16)}"`,
  );
  assert.equal(await response.text(), "body{margin:0}");
});

Deno.test("serveStatic: binary bytes, unknown extensions, empty files, names with spaces", async () => {
  const router = app();
  const data = await get(router, "/data.bin");
  assert.equal(data.headers.get("Content-Type"), "application/octet-stream");
  assert.deepEqual(new Uint8Array(await data.arrayBuffer()), fixture.data);
  const unknown = await get(router, "/unknown.zzz");
  assert.equal(unknown.headers.get("Content-Type"), "application/octet-stream");
  await unknown.body?.cancel();
  const empty = await get(router, "/empty.txt");
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get("Content-Length"), "0");
  assert.equal(await empty.text(), "");
  assert.equal(await (await get(router, "/sub/a%20b.txt")).text(), "spaced");
});

Deno.test("serveStatic: mimeTypes adds and replaces types", async () => {
  const response = await get(
    app({ mimeTypes: { zzz: "model/x-test", css: "text/x-css" } }),
    "/unknown.zzz",
  );
  assert.equal(response.headers.get("Content-Type"), "model/x-test");
  await response.body?.cancel();
});

Deno.test("serveStatic: immutable adds to Cache-Control; maxAge defaults to 0", async () => {
  const immutable = await get(
    app({ maxAge: 31536000, immutable: true }),
    "/app.css",
  );
  assert.equal(
    immutable.headers.get("Cache-Control"),
    "public, max-age=31536000, immutable",
  );
  await immutable.body?.cancel();
  const plain = await get(app(), "/app.css");
  assert.equal(plain.headers.get("Cache-Control"), "public, max-age=0");
  await plain.body?.cancel();
});

Deno.test("serveStatic: a missing file falls through to the routes and the 404", async () => {
  const router = app();
  assert.equal(await (await get(router, "/route")).text(), "from a route");
  assert.equal(
    await (await get(router, "/missing.txt")).text(),
    "route after static",
  );
  const missing = await get(router, "/nope/deeper.txt");
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), "Not Found");
  // A path through a file ("not a directory") is missing too.
  const through = await get(router, "/app.css/x");
  assert.equal(through.status, 404);
  await through.body?.cancel();
});

Deno.test("serveStatic: only GET and HEAD; other methods reach the router", async () => {
  const router = app();
  const post = await get(router, "/app.css", { method: "POST" });
  assert.equal(post.status, 404); // no route: not the file
  assert.equal(await post.text(), "Not Found");
});

Deno.test("serveStatic: HEAD sends the headers and length without a body", async () => {
  const response = await get(app(), "/data.bin", { method: "HEAD" });
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Length"), "100000");
  assert.equal(response.body, null);
});

Deno.test("serveStatic: 304 for a matching If-None-Match (lists, weak tags, *)", async () => {
  const router = app();
  const first = await get(router, "/app.css");
  const etag = first.headers.get("ETag")!;
  await first.body?.cancel();
  for (const value of [etag, `"x", ${etag}`, `W/${etag}`, "*"]) {
    const response = await get(router, "/app.css", {
      headers: { "If-None-Match": value },
    });
    assert.equal(response.status, 304, value);
    assert.equal(response.body, null);
    assert.equal(response.headers.get("ETag"), etag);
    assert.equal(response.headers.get("Cache-Control"), "public, max-age=0");
  }
  const stale = await get(router, "/app.css", {
    headers: { "If-None-Match": '"stale"' },
  });
  assert.equal(stale.status, 200);
  await stale.body?.cancel();
});

Deno.test("serveStatic: If-Modified-Since gives 304 unless the file is newer; If-None-Match wins", async () => {
  const router = app();
  const { mtime } = await Deno.stat(`${fixture.root}/app.css`);
  const same = await get(router, "/app.css", {
    headers: { "If-Modified-Since": mtime!.toUTCString() },
  });
  assert.equal(same.status, 304);
  const older = await get(router, "/app.css", {
    headers: {
      "If-Modified-Since": new Date(mtime!.getTime() - 5000).toUTCString(),
    },
  });
  assert.equal(older.status, 200);
  await older.body?.cancel();
  const both = await get(router, "/app.css", {
    headers: {
      "If-Modified-Since": mtime!.toUTCString(),
      "If-None-Match": '"other"',
    },
  });
  assert.equal(both.status, 200);
  await both.body?.cancel();
  const garbage = await get(router, "/app.css", {
    headers: { "If-Modified-Since": "yesterday" },
  });
  assert.equal(garbage.status, 200);
  await garbage.body?.cancel();
});

async function range(
  router: Router,
  value: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const response = await get(router, "/data.bin", {
    headers: { Range: value, ...headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

Deno.test("serveStatic: a single byte range is 206 with Content-Range", async () => {
  const router = app();
  const { data } = fixture;
  const cases: [string, number, number][] = [
    ["bytes=0-9", 0, 9],
    ["bytes=99990-", 99990, 99999],
    ["bytes=-10", 99990, 99999],
    ["bytes=70000-70000", 70000, 70000],
    ["bytes=65530-65545", 65530, 65545], // across a read chunk
    ["bytes=99995-200000", 99995, 99999], // end past the size is clamped
    ["bytes=-200000", 0, 99999], // suffix longer than the file
  ];
  for (const [value, start, end] of cases) {
    const result = await range(router, value);
    assert.equal(result.status, 206, value);
    assert.equal(
      result.headers.get("Content-Range"),
      `bytes ${start}-${end}/100000`,
      value,
    );
    assert.equal(result.headers.get("Content-Length"), String(end - start + 1));
    assert.deepEqual(result.bytes, data.subarray(start, end + 1), value);
  }
});

Deno.test("serveStatic: an unsatisfiable range is 416 with the size", async () => {
  const router = app();
  for (const value of ["bytes=100000-", "bytes=200000-300000", "bytes=-0"]) {
    const result = await range(router, value);
    assert.equal(result.status, 416, value);
    assert.equal(result.headers.get("Content-Range"), "bytes */100000");
    assert.equal(result.bytes.length, 0);
  }
});

Deno.test("serveStatic: several ranges, other units and malformed ranges get the whole file", async () => {
  const router = app();
  for (
    const value of [
      "bytes=0-1,5-6",
      "items=0-1",
      "bytes=5-2",
      "bytes=x-y",
      "bytes=-",
    ]
  ) {
    const result = await range(router, value);
    assert.equal(result.status, 200, value);
    assert.equal(result.bytes.length, 100000, value);
    assert.equal(result.headers.get("Content-Range"), null);
  }
});

Deno.test("serveStatic: If-Range applies the range only to the same version", async () => {
  const router = app();
  const head = await get(router, "/data.bin", { method: "HEAD" });
  const etag = head.headers.get("ETag")!;
  const lastModified = head.headers.get("Last-Modified")!;
  assert.equal(
    (await range(router, "bytes=0-1", { "If-Range": etag })).status,
    206,
  );
  assert.equal(
    (await range(router, "bytes=0-1", { "If-Range": lastModified })).status,
    206,
  );
  assert.equal(
    (await range(router, "bytes=0-1", { "If-Range": '"old"' })).status,
    200,
  );
  assert.equal(
    (await range(router, "bytes=0-1", {
      "If-Range": "Thu, 01 Jan 2015 00:00:00 GMT",
    })).status,
    200,
  );
});

Deno.test("serveStatic: HEAD with a Range gives the range's headers", async () => {
  const response = await get(app(), "/data.bin", {
    method: "HEAD",
    headers: { Range: "bytes=10-19" },
  });
  assert.equal(response.status, 206);
  assert.equal(response.headers.get("Content-Length"), "10");
  assert.equal(response.body, null);
});

Deno.test("serveStatic: index files and the trailing-slash redirect", async () => {
  const router = app();
  assert.equal(await (await get(router, "/")).text(), "<h1>home</h1>");
  assert.equal(await (await get(router, "/sub/")).text(), "<h1>sub</h1>");
  const redirect = await get(router, "/sub?x=1");
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get("Location"), "/sub/?x=1");
  // A directory without an index, and a file asked for as a directory.
  assert.equal((await get(router, "/empty-dir/")).status, 404);
  assert.equal((await get(router, "/app.css/")).status, 404);
  const noIndex = app({ index: false });
  assert.equal((await get(noIndex, "/")).status, 404);
  const custom = app({ index: "a b.txt" });
  assert.equal(await (await get(custom, "/sub/")).text(), "spaced");
});

Deno.test("serveStatic: dotfiles fall through unless allowed", async () => {
  assert.equal((await get(app(), "/.env")).status, 404);
  const allowed = await get(app({ dotfiles: true }), "/.env");
  assert.equal(await allowed.text(), "KEY=value");
});

Deno.test("serveStatic: prefix serves below it only", async () => {
  const router = app({ prefix: "/assets/" });
  assert.equal(
    await (await get(router, "/assets/app.css")).text(),
    "body{margin:0}",
  );
  assert.equal((await get(router, "/app.css")).status, 404);
  assert.equal((await get(router, "/assetsapp.css")).status, 404);
  const redirect = await get(router, "/assets");
  assert.equal(redirect.status, 301);
  assert.equal(redirect.headers.get("Location"), "/assets/");
  assert.equal(await (await get(router, "/assets/")).text(), "<h1>home</h1>");
  assert.equal(await (await get(router, "/route")).text(), "from a route");
});

Deno.test("serveStatic: a symbolic link inside the root is served, typed by the name asked for", async () => {
  const alias = await get(app(), "/alias.css");
  assert.equal(alias.headers.get("Content-Type"), "text/css; charset=utf-8");
  assert.equal(await alias.text(), "body{margin:0}");
  const renamed = await get(app(), "/style.txt");
  assert.equal(
    renamed.headers.get("Content-Type"),
    "text/plain; charset=utf-8",
  );
  assert.equal(await renamed.text(), "body{margin:0}");
});

// Each way out of the root, as a request URL string. `new Request()`
// normalizes raw `..` and `%2e%2e` segments and backslashes, so those are
// sent over a raw socket in server_test.ts as well.
const ESCAPES: [string, string][] = [
  ["encoded slash", "/..%2fpublic-secret.txt"],
  ["encoded slash inside a name", "/sub%2f..%2f..%2fprivate%2fsecret.txt"],
  ["encoded backslash", "/..%5cpublic-secret.txt"],
  ["NUL byte", "/app.css%00.txt"],
  ["NUL byte alone", "/%00"],
  ["encoded dot dot with encoded slash", "/%2e%2e%2fpublic-secret.txt"],
  ["empty segment", "//etc/passwd"],
  ["malformed escape", "/%e0%a4%a.txt"],
  ["symbolic link to a file outside", "/leak.txt"],
  ["symbolic link to a folder outside", "/leak-dir/secret.txt"],
];

for (const [name, path] of ESCAPES) {
  Deno.test(`serveStatic: 404 for a way out of the root: ${name}`, async () => {
    const router = createRouter({
      middleware: [serveStatic({ root: fixture.root })],
    });
    // A catch-all route proves the refusal is the middleware's own 404.
    router.get("*rest", () => new Response("reached the routes"));
    const response = await router.fetch(
      new Request(`http://localhost${path}`),
    );
    const body = await response.text();
    assert.equal(response.status, 404, `${path}: ${body}`);
    assert.equal(body, "Not Found");
  });
}

Deno.test("serveStatic: bad options are refused when it is created", () => {
  assert.throws(
    () => serveStatic({ root: `${fixture.dir}/nope` }),
    /root ".*nope" cannot be read/,
  );
  assert.throws(
    () => serveStatic({ root: `${fixture.root}/app.css` }),
    /is not a directory/,
  );
  assert.throws(
    () => serveStatic({ root: fixture.root, prefix: "assets" }),
    /prefix must start with "\/"/,
  );
  assert.throws(
    () => serveStatic({ root: fixture.root, maxAge: -1 }),
    RangeError,
  );
  assert.throws(
    () => serveStatic({ root: fixture.root, maxAge: 1.5 }),
    /whole number of seconds/,
  );
});

Deno.test("serveStatic: a file: URL root", async () => {
  const router = createRouter({
    middleware: [serveStatic({ root: new URL(`file://${fixture.root}/sub`) })],
  });
  assert.equal(await (await get(router, "/")).text(), "<h1>sub</h1>");
});
