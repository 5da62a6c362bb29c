// The notes API over real HTTP, on a Deno KV file in a temp dir: through the
// typed client (every route), and by hand for what a client cannot send.
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createClient } from "@fetchkit/toolkit/client";
import { Route, type RouteMap } from "@fetchkit/toolkit/fetch-router/routes";
import { createApp, type Note } from "./app.ts";
import { routes } from "./routes.ts";
import { tour } from "./client.ts";
import { issueToken } from "./auth.ts";

const SECRET = "test-secret-for-the-notes-api-0123456789";

async function serve() {
  const dir = await Deno.makeTempDir({ prefix: "api_example_" });
  const kv = await Deno.openKv(`${dir}/api.sqlite`);
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    createApp({ kv, jwtSecret: SECRET }).fetch,
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  // Every write carries a valid token unless it sets Authorization itself;
  // reads go without one, as a shared cache keeps no answer to a request
  // with credentials.
  const token = await issueToken(SECRET, "tester");
  const call = (
    method: string,
    path: string,
    body?: BodyInit,
    headers: Record<string, string> = { "content-type": "application/json" },
  ) =>
    fetch(base + path, {
      method,
      body,
      headers: {
        accept: "application/json",
        ...(method === "GET" ? {} : { authorization: `Bearer ${token}` }),
        ...headers,
      },
    });
  return {
    base,
    token,
    call,
    async [Symbol.asyncDispose]() {
      await server.shutdown();
      kv.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

/** Every route name in a map, as `notes.show`. */
function namesOf(map: RouteMap, prefix = ""): string[] {
  return Object.entries(map).flatMap(([name, entry]) =>
    entry instanceof Route
      ? [prefix + name]
      : namesOf(entry, `${prefix}${name}.`)
  );
}

Deno.test("api example: every route round-trips through the typed client", async () => {
  await using app = await serve();
  const api = createClient(routes, {
    baseUrl: app.base,
    headers: { authorization: `Bearer ${app.token}` },
  });
  const called = new Set<string>();

  const created = await api.notes.create({
    body: { title: " First ", tags: ["a"] },
  });
  called.add("notes.create");
  assert.equal(created.status, 201);
  assert.ok(created.ok);
  const first: Note = created.data;
  assert.equal(first.id, 1);
  assert.equal(first.title, "First");
  assert.equal(first.body, "");
  assert.equal(created.response.headers.get("location"), "/notes/1");

  for (const title of ["Second", "Third"]) {
    assert.equal((await api.notes.create({ body: { title } })).status, 201);
  }
  const shown = await api.notes.show({ params: { id: 2 } });
  called.add("notes.show");
  assert.ok(shown.ok);
  assert.equal(shown.data.title, "Second");

  const page1 = await api.notes.index({ query: { limit: 2 } });
  called.add("notes.index");
  assert.ok(page1.ok);
  assert.deepEqual(page1.data.notes.map((n) => n.id), [1, 2]);
  assert.equal(page1.data.next, "/notes?limit=2&after=2");
  const page2 = await api.notes.index({ query: { limit: 2, after: 2 } });
  assert.ok(page2.ok);
  assert.deepEqual(page2.data.notes.map((n) => n.id), [3]);
  assert.equal(page2.data.next, null);

  const updated = await api.notes.update({
    params: { id: 1 },
    body: { title: "New", body: "text" },
  });
  called.add("notes.update");
  assert.ok(updated.ok);
  assert.equal(updated.data.title, "New");
  assert.equal(updated.data.body, "text");
  assert.equal(updated.data.createdAt, first.createdAt);

  const deleted = await api.notes.destroy({ params: { id: 1 } });
  called.add("notes.destroy");
  assert.equal(deleted.status, 204);
  const gone = await api.notes.show({ params: { id: 1 } });
  assert.equal(gone.status, 404);
  assert.deepEqual(gone.data, { error: "Note 1 not found" });

  const document = await api.openapi();
  called.add("openapi");
  assert.ok(document.ok);
  const validator = new Validator();
  assert.deepEqual(
    await validator.validate(document.data as Record<string, unknown>),
    { valid: true },
  );
  const paths = (document.data as { paths: Record<string, unknown> }).paths;
  const home = await api.home();
  called.add("home");
  assert.ok(home.ok);
  assert.deepEqual(Object.keys(paths).sort(), [
    "/",
    "/notes",
    "/notes/{id}",
    "/openapi.json",
  ]);

  assert.deepEqual([...called].sort(), namesOf(routes).sort());
});

Deno.test("api example: client.ts tours the API", async () => {
  await using app = await serve();
  const log = await tour(app.base, app.token);
  assert.deepEqual(log, [
    "created 1: Groceries",
    'invalid: 422 {"error":"Invalid request body","fieldErrors":{"title":["Title is required"]},"formErrors":[]}',
    "listed 1",
    "updated 1: milk, eggs",
    "shown 1: home",
    "deleted 1: 204",
    "gone 1: 404",
  ]);
});

Deno.test("api example: 422 with fieldErrors, 400 for a bad id or page", async () => {
  await using app = await serve();
  const invalid = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "", tags: ["ok", "x".repeat(31)] }),
  );
  assert.equal(invalid.status, 422);
  const errors = await invalid.json();
  assert.deepEqual(Object.keys(errors.fieldErrors).sort(), [
    "tags[1]",
    "title",
  ]);
  assert.deepEqual(errors.fieldErrors.title, ["Title is required"]);

  const notAnObject = await app.call("POST", "/notes", "[1, 2]");
  assert.equal(notAnObject.status, 422);
  assert.equal((await notAnObject.json()).formErrors.length, 1);

  for (const id of ["abc", "0", "1.5"]) {
    const response = await app.call("GET", `/notes/${id}`);
    assert.equal(response.status, 400, id);
    const body = await response.json();
    assert.equal(body.error, "Invalid path parameters");
    assert.deepEqual(Object.keys(body.fieldErrors), ["id"]);
  }
  const page = await app.call("GET", "/notes?limit=0");
  assert.equal(page.status, 400);
  assert.deepEqual(Object.keys((await page.json()).fieldErrors), ["limit"]);

  // A form body is validated by the same schema.
  const fromForm = await app.call(
    "POST",
    "/notes",
    new URLSearchParams([["title", "By form"], ["tags", "x"], ["tags", "y"]]),
    {},
  );
  assert.equal(fromForm.status, 201);
  assert.deepEqual((await fromForm.json()).tags, ["x", "y"]);
});

Deno.test("api example: 400, 413 and 415 from the body reader; the server keeps serving", async () => {
  await using app = await serve();
  const malformed = await app.call("POST", "/notes", '{"title": "a",\n "x": }');
  assert.equal(malformed.status, 400);
  assert.match(
    (await malformed.json()).error,
    /^Malformed JSON at line 2, column 7/,
  );

  const wrongType = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "a" }),
    { "content-type": "text/plain" },
  );
  assert.equal(wrongType.status, 415);
  assert.match((await wrongType.json()).error, /is not JSON/);

  const big = JSON.stringify({ title: "a", body: "x".repeat(40_000) });
  const tooLarge = await app.call("POST", "/notes", big);
  assert.equal(tooLarge.status, 413);
  assert.match(
    (await tooLarge.json()).error,
    /larger than maxBytes \(32768 bytes\): Content-Length declares 40\d\d\d bytes/,
  );

  // Chunked: no Content-Length, so the limit is counted while reading.
  const chunks = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 10; i++) {
        controller.enqueue(new TextEncoder().encode(" ".repeat(8192)));
      }
      controller.close();
    },
  });
  const chunked = await app.call("PUT", "/notes/1", chunks);
  assert.equal(chunked.status, 413);
  assert.equal(
    (await chunked.json()).error,
    "Request body is larger than maxBytes (32768 bytes)",
  );

  const empty = await app.call("POST", "/notes", "");
  assert.equal(empty.status, 400);
  assert.match((await empty.json()).error, /empty/);

  const ok = await app.call("POST", "/notes", JSON.stringify({ title: "ok" }));
  assert.equal(ok.status, 201);
  await ok.body?.cancel();
});

Deno.test("api example: a retried create with an Idempotency-Key makes one note; the list is cached until a write", async () => {
  await using app = await serve();
  const key = {
    "content-type": "application/json",
    "idempotency-key": `"${crypto.randomUUID()}"`,
  };
  const first = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "Once" }),
    key,
  );
  assert.equal(first.status, 201);
  const note: Note = await first.json();
  const retry = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "Once" }),
    key,
  );
  assert.equal(retry.status, 201);
  assert.equal(retry.headers.get("idempotent-replayed"), "true");
  assert.deepEqual(await retry.json(), note);
  const changed = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "Twice" }),
    key,
  );
  assert.equal(changed.status, 422);
  await changed.body?.cancel();

  const list = await app.call("GET", "/notes");
  assert.equal(list.headers.get("x-cache"), "MISS");
  assert.deepEqual((await list.json()).notes.map((n: Note) => n.title), [
    "Once",
  ]);
  const cached = await app.call("GET", "/notes");
  assert.equal(cached.headers.get("x-cache"), "HIT");
  await cached.body?.cancel();
  const created = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "Next" }),
  );
  await created.body?.cancel();
  const fresh = await app.call("GET", "/notes");
  assert.equal(fresh.headers.get("x-cache"), "MISS");
  assert.deepEqual((await fresh.json()).notes.map((n: Note) => n.title), [
    "Once",
    "Next",
  ]);
});

Deno.test("api example: write routes need a bearer JWT; reads are open", async () => {
  await using app = await serve();
  const body = JSON.stringify({ title: "Guarded" });
  const json = { "content-type": "application/json" };
  const challenge = (response: Response) =>
    response.headers.get("www-authenticate") ?? "";

  const anonymous = await app.call("POST", "/notes", body, {
    ...json,
    authorization: "",
  });
  assert.equal(anonymous.status, 401);
  // No token sent: the challenge has no error code (RFC 6750 3.1).
  assert.equal(challenge(anonymous), 'Bearer realm="api"');
  await anonymous.body?.cancel();

  const forged = await issueToken(
    "another-secret-of-32-characters-or-more",
    "mallory",
  );
  const otherKey = await app.call("POST", "/notes", body, {
    ...json,
    authorization: `Bearer ${forged}`,
  });
  assert.equal(otherKey.status, 401);
  assert.match(challenge(otherKey), /signature does not verify/);
  await otherKey.body?.cancel();

  const expired = await issueToken(SECRET, "tester", -60);
  const late = await app.call("POST", "/notes", body, {
    ...json,
    authorization: `Bearer ${expired}`,
  });
  assert.equal(late.status, 401);
  assert.match(challenge(late), /The token has expired/);
  await late.body?.cancel();

  const created = await app.call("POST", "/notes", body);
  assert.equal(created.status, 201);
  const { id } = await created.json();
  for (
    const [method, path, payload] of [
      ["PUT", `/notes/${id}`, body],
      ["DELETE", `/notes/${id}`, undefined],
    ] as const
  ) {
    const refused = await app.call(method, path, payload, {
      ...json,
      authorization: "",
    });
    assert.equal(refused.status, 401, method);
    await refused.body?.cancel();
  }
  // Reads need no token.
  const read = await app.call("GET", `/notes/${id}`, undefined, {
    authorization: "",
  });
  assert.equal(read.status, 200);
  assert.equal((await read.json()).title, "Guarded");
});

Deno.test("api example: Idempotency-Keys are scoped to the token's subject: Bob cannot replay Ada's answer", async () => {
  await using app = await serve();
  const ada = await issueToken(SECRET, "ada");
  const bob = await issueToken(SECRET, "bob");
  const key = `"${crypto.randomUUID()}"`;
  const body = JSON.stringify({ title: "Ada's note", body: "private plans" });
  const post = (token: string) =>
    app.call("POST", "/notes", body, {
      "content-type": "application/json",
      "idempotency-key": key,
      authorization: `Bearer ${token}`,
    });
  const first = await post(ada);
  assert.equal(first.status, 201);
  const adas: Note = await first.json();
  // Same address, same key, same body: Bob's own request runs.
  const second = await post(bob);
  assert.equal(second.status, 201);
  assert.equal(second.headers.get("idempotent-replayed"), null);
  const bobs: Note = await second.json();
  assert.notEqual(bobs.id, adas.id);
  assert.equal(bobs.owner, "bob");
});

Deno.test("api example: a note has an owner; others get 403 on update and delete", async () => {
  await using app = await serve();
  const ada = await issueToken(SECRET, "ada");
  const bob = await issueToken(SECRET, "bob");
  const as = (token: string) => ({
    "content-type": "application/json",
    authorization: `Bearer ${token}`,
  });
  const created = await app.call(
    "POST",
    "/notes",
    JSON.stringify({ title: "Ada's" }),
    as(ada),
  );
  const note: Note = await created.json();
  assert.equal(note.owner, "ada");
  const edit = await app.call(
    "PUT",
    `/notes/${note.id}`,
    JSON.stringify({ title: "Bob was here" }),
    as(bob),
  );
  assert.equal(edit.status, 403);
  assert.match((await edit.json()).error, /belongs to another user/);
  const remove = await app.call(
    "DELETE",
    `/notes/${note.id}`,
    undefined,
    as(bob),
  );
  assert.equal(remove.status, 403);
  await remove.body?.cancel();
  const still = await app.call("GET", `/notes/${note.id}`);
  assert.equal((await still.json()).title, "Ada's");
  // The owner may.
  const own = await app.call(
    "PUT",
    `/notes/${note.id}`,
    JSON.stringify({ title: "Ada's, edited" }),
    as(ada),
  );
  assert.equal(own.status, 200);
  assert.equal((await own.json()).owner, "ada");
  const gone = await app.call(
    "DELETE",
    `/notes/${note.id}`,
    undefined,
    as(ada),
  );
  assert.equal(gone.status, 204);
});

Deno.test("api example: one body limit for JSON, urlencoded and multipart bodies", async () => {
  await using app = await serve();
  const urlencoded = new URLSearchParams({
    title: "a",
    body: "x".repeat(40_000),
  });
  const form = await app.call("POST", "/notes", urlencoded.toString(), {
    "content-type": "application/x-www-form-urlencoded",
  });
  assert.equal(form.status, 413);
  assert.match((await form.json()).error, /32768/);
  const multipart = new FormData();
  multipart.set("title", "a");
  multipart.set("body", "x".repeat(40_000));
  const request = new Request("http://x/", { method: "POST", body: multipart });
  const multi = await app.call(
    "POST",
    "/notes",
    await request.arrayBuffer(),
    { "content-type": request.headers.get("content-type")! },
  );
  assert.equal(multi.status, 413);
  await multi.body?.cancel();
  // With an Idempotency-Key too.
  const keyed = await app.call("POST", "/notes", "x".repeat(40_000), {
    "content-type": "application/json",
    "idempotency-key": "k-big",
  });
  assert.equal(keyed.status, 413);
  await keyed.body?.cancel();
  // A small form is a note.
  const small = await app.call("POST", "/notes", "title=Hi", {
    "content-type": "application/x-www-form-urlencoded",
  });
  assert.equal(small.status, 201);
  await small.body?.cancel();
});

Deno.test("api example: GET / explains the API and links the OpenAPI document", async () => {
  await using app = await serve();
  const home = await app.call("GET", "/");
  assert.equal(home.status, 200);
  const index = await home.json();
  assert.equal(index.openapi, `${app.base}/openapi.json`);
  assert.equal(index.notes, `${app.base}/notes`);
  assert.match(index.description, /Bearer/);
  assert.match(index.readme, /examples\/api\/README\.md/);
  const doc = await app.call("GET", "/openapi.json");
  assert.equal(doc.status, 200);
  await doc.body?.cancel();
});
