// The typed client against a router in process. Portable: runs on Node and
// Bun through _tools/runtimes (plain fetch semantics, no Deno.* API).
import assert from "node:assert/strict";
import { createClient } from "@fetchkit/toolkit/client";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import * as z from "zod";

const Note = z.object({
  id: z.number(),
  title: z.string(),
  tags: z.array(z.string()),
});
const NoteInput = z.object({
  title: z.string().min(1),
  tags: z.array(z.string()).default([]),
});
const Id = z.object({ id: z.coerce.number().int().positive() });

const routes = route({
  notes: resources("notes", {
    only: ["index", "show", "create", "update", "destroy"],
    names: { index: "list" },
    schemas: {
      index: {
        query: z.object({
          limit: z.coerce.number().int().min(1).default(20),
          tag: z.array(z.string()).default([]),
        }),
        response: z.object({ notes: z.array(Note) }),
      },
      show: { params: Id, response: Note },
      create: { body: NoteInput, response: Note },
      update: { params: Id, body: NoteInput, response: Note },
    },
  }),
  feed: { method: "GET", pattern: "/feed(.:format)" },
  text: { method: "GET", pattern: "/text" },
  contact: form("contact", {
    schemas: { action: { body: z.object({ email: z.email() }) } },
  }),
  files: { method: "GET", pattern: "/files/*path" },
  echo: "/echo",
});

function app() {
  const notes = new Map<number, z.output<typeof Note>>();
  const router = createRouter();
  router.map(routes, {
    actions: {
      notes: {
        actions: {
          list: ({ input, request }) =>
            Response.json({
              notes: [...notes.values()].slice(0, input.query.limit),
              tag: input.query.tag,
              auth: request.headers.get("authorization"),
            }),
          show: ({ input }) => {
            const note = notes.get(input.params.id);
            return note === undefined
              ? Response.json({ error: "not found" }, { status: 404 })
              : Response.json(note);
          },
          create: ({ input }) => {
            const note = { id: notes.size + 1, ...input.body };
            notes.set(note.id, note);
            return Response.json(note, { status: 201 });
          },
          update: ({ input }) => {
            const note = { id: input.params.id, ...input.body };
            notes.set(note.id, note);
            return Response.json(note);
          },
          destroy: ({ params }) => {
            notes.delete(Number(params.id));
            return new Response(null, { status: 204 });
          },
        },
      },
      feed: ({ params }) => new Response(`feed ${params.format ?? "html"}`),
      text: () =>
        new Response("{not json", {
          headers: { "content-type": "application/json" },
        }),
      contact: {
        actions: {
          index: () => new Response("form"),
          action: ({ input }) => new Response(`thanks ${input.body.email}`),
        },
      },
      files: ({ params, url }) =>
        Response.json({ path: params.path, search: url.search }),
      echo: async ({ request }) =>
        Response.json({ method: request.method, body: await request.text() }),
    },
  });
  return router;
}

function clientOf(headers?: HeadersInit | (() => HeadersInit)) {
  return createClient(routes, {
    baseUrl: "http://api.test",
    fetch: app().fetch,
    headers,
  });
}

Deno.test("client: every route round-trips, typed from the schemas", async () => {
  const client = clientOf({ authorization: "Bearer t" });
  const created = await client.notes.create({ body: { title: "Hi" } });
  assert.equal(created.status, 201);
  assert.ok(created.ok);
  const id: number = created.data.id;
  assert.deepEqual(created.data, { id: 1, title: "Hi", tags: [] });

  const shown = await client.notes.show({ params: { id } });
  assert.ok(shown.ok);
  assert.equal(shown.data.title, "Hi");

  const updated = await client.notes.update({
    params: { id: 1 },
    body: { title: "New", tags: ["a"] },
  });
  assert.ok(updated.ok);
  assert.deepEqual(updated.data.tags, ["a"]);

  const list = await client.notes.list({
    query: { limit: 5, tag: ["x", "y"] },
  });
  assert.ok(list.ok);
  assert.equal(list.data.notes.length, 1);
  assert.deepEqual(list.data, {
    notes: [{ id: 1, title: "New", tags: ["a"] }],
    tag: ["x", "y"],
    auth: "Bearer t",
  } as unknown);

  const listAll = await client.notes.list();
  assert.equal(listAll.status, 200);

  const deleted = await client.notes.destroy({ params: { id: 1 } });
  assert.equal(deleted.status, 204);
  assert.equal(deleted.data, "");

  const feed = await client.feed();
  assert.equal(feed.data, "feed html");
  const rss = await client.feed({ params: { format: "rss" } });
  assert.equal(rss.data, "feed rss");

  const thanks = await client.contact.action({
    body: new URLSearchParams({ email: "ada@example.com" }),
  });
  assert.equal(thanks.data, "thanks ada@example.com");
  const page = await client.contact.index();
  assert.equal(page.data, "form");

  const files = await client.files({
    params: { path: "a b/c.txt" },
    query: { v: 2, empty: null },
  });
  assert.deepEqual(files.data, { path: "a b/c.txt", search: "?v=2" });

  const echoGet = await client.echo();
  assert.deepEqual(echoGet.data, { method: "GET", body: "" });
  const echoPost = await client.echo({ body: { a: 1 } });
  assert.deepEqual(echoPost.data, { method: "POST", body: '{"a":1}' });
});

Deno.test("client: never throws for a status or a body that is not JSON", async () => {
  const client = clientOf();
  const missing = await client.notes.show({ params: { id: 99 } });
  assert.equal(missing.ok, false);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.data, { error: "not found" });

  const invalid = await client.notes.create({ body: { title: "" } });
  assert.equal(invalid.status, 422);
  if (!invalid.ok) {
    const data = invalid.data as { fieldErrors: Record<string, string[]> };
    assert.deepEqual(Object.keys(data.fieldErrors), ["title"]);
  }
  const badParam = await client.notes.show({ params: { id: -1 } });
  assert.equal(badParam.status, 400);

  const lying = await client.text();
  assert.equal(lying.ok, true);
  assert.equal(lying.data, "{not json");

  const noRoute = createClient(route({ gone: "/gone" }), {
    baseUrl: "http://api.test",
    fetch: app().fetch,
  });
  const notFound = await noRoute.gone();
  assert.equal(notFound.status, 404);
  assert.equal(notFound.data, "Not Found");
});

Deno.test("client: only a network error rejects", async () => {
  const client = createClient(routes, {
    baseUrl: "http://api.test",
    fetch: () => Promise.reject(new TypeError("connection refused")),
  });
  await assert.rejects(client.notes.list(), /connection refused/);
});

Deno.test("client: headers from a function, a call's own headers win; a base path is kept", async () => {
  const seen: Request[] = [];
  let token = "one";
  const client = createClient(routes, {
    baseUrl: "https://api.example.com/v1/",
    headers: () => ({ authorization: `Bearer ${token}`, "x-app": "a" }),
    fetch: (request) => {
      seen.push(request);
      return new Response("ok");
    },
  });
  await client.notes.show({ params: { id: 3 } }, { headers: { "x-app": "b" } });
  token = "two";
  await client.notes.list({ query: { limit: 2 } });
  assert.equal(seen[0].url, "https://api.example.com/v1/notes/3");
  assert.equal(seen[0].headers.get("authorization"), "Bearer one");
  assert.equal(seen[0].headers.get("x-app"), "b");
  assert.equal(seen[0].headers.get("accept"), "application/json");
  assert.equal(seen[1].url, "https://api.example.com/v1/notes?limit=2");
  assert.equal(seen[1].headers.get("authorization"), "Bearer two");
});

Deno.test("client: nested query objects follow parseQuery's names, and come back whole", async () => {
  const Search = z.object({
    filter: z.object({
      tag: z.array(z.string()),
      owner: z.object({ id: z.coerce.number() }),
    }),
    // An empty array sends nothing: a default brings it back.
    rows: z.array(z.object({ n: z.coerce.number() })).default([]),
  });
  const searchRoutes = route({
    search: { method: "GET", pattern: "/search", query: Search },
  });
  const router = createRouter();
  router.map(searchRoutes, {
    actions: {
      search: ({ input, url }) =>
        Response.json({ query: input.query, search: url.search }),
    },
  });
  const client = createClient(searchRoutes, {
    baseUrl: "http://x",
    fetch: router.fetch,
  });
  const query = {
    filter: { tag: ["a", "b"], owner: { id: 1 } },
    rows: [{ n: 1 }, { n: 2 }],
  };
  const result = await client.search({ query });
  const data = result.data as { query: unknown; search: string };
  assert.equal(
    decodeURIComponent(data.search),
    "?filter.tag=a&filter.tag=b&filter.owner.id=1&rows[0].n=1&rows[1].n=2",
  );
  assert.deepEqual(data.query, query);
  // One tag: written filter.tag[], so it comes back as an array.
  const one = { filter: { tag: ["only"], owner: { id: 2 } }, rows: [] };
  const single = await client.search({ query: one });
  assert.equal(single.status, 200);
  assert.deepEqual((single.data as { query: unknown }).query, {
    ...one,
    rows: [],
  });
});

// Type errors, checked by `deno check` (an unused @ts-expect-error fails it).
// Never called: the calls would fail at run time.
export function typeProbes(client: ReturnType<typeof clientOf>): void {
  // @ts-expect-error wrong param name
  client.notes.show({ params: { idd: 1 } });
  // @ts-expect-error missing param
  client.notes.show({ params: {} });
  // @ts-expect-error missing params object
  client.notes.show();
  // @ts-expect-error body of the wrong type
  client.notes.create({ body: { title: 1 } });
  // @ts-expect-error missing body
  client.notes.create({});
  // @ts-expect-error no such route
  client.notes.edit();
  // @ts-expect-error query of the wrong type
  client.notes.list({ query: { tag: 1 } });
  void (async () => {
    const result = await client.notes.show({ params: { id: 1 } });
    if (result.ok) {
      // @ts-expect-error data is a Note: no such field
      result.data.missing;
    }
    const text = await client.text();
    // No response schema: unknown
    // @ts-expect-error unknown has no properties
    text.data.length;
  });
}

Deno.test("client: redirects: another origin gets none of the caller's headers; a 307 there is not followed", async () => {
  const seen: Request[] = [];
  const client = createClient(routes, {
    baseUrl: "https://api.example.com",
    headers: { "x-api-key": "k", authorization: "Bearer t" },
    fetch: (request) => {
      seen.push(request);
      const url = new URL(request.url);
      if (url.host === "api.example.com" && url.pathname === "/text") {
        return Response.redirect("https://cdn.example.net/text", 302);
      }
      if (url.host === "api.example.com" && request.method === "POST") {
        return new Response(null, {
          status: 307,
          headers: { location: "https://elsewhere.example/echo" },
        });
      }
      return new Response("landed");
    },
  });
  const text = await client.text({}, { headers: { cookie: "a=1" } });
  assert.equal(text.data, "landed");
  assert.equal(seen.length, 2);
  assert.equal(seen[1].url, "https://cdn.example.net/text");
  assert.deepEqual([...seen[1].headers], []);
  const posted = await client.echo({ body: { secret: 1 } });
  assert.equal(posted.status, 307, "not followed with its body");
  assert.equal(seen.length, 3);
});

Deno.test("client: an answer over maxResponseBytes rejects naming the limit", async () => {
  const client = createClient(routes, {
    baseUrl: "https://api.example.com",
    maxResponseBytes: 10,
    fetch: () => new Response(new Blob(["x".repeat(11)]).stream()),
  });
  await assert.rejects(
    client.text(),
    (error: Error) =>
      error.name === "ResponseTooLargeError" &&
      /over maxResponseBytes \(10 bytes\)/.test(error.message),
  );
  const ten = await client.text({}, { maxResponseBytes: 11 });
  assert.equal(ten.data, "x".repeat(11));
});
