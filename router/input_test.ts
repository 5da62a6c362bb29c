// Schemas on routes: validation before the handler, context.input, onInvalid.
// Portable (runs on Node and Bun through _tools/runtimes).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  form,
  resources,
  Route,
  route,
} from "@fetchkit/toolkit/fetch-router/routes";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import * as z from "zod";
import * as v from "valibot";

const NoteInput = z.object({
  title: z.string().min(1, "Title is required"),
  tags: z.array(z.string()).default([]),
});
const Id = z.object({ id: z.coerce.number().int().positive() });
const Page = z.object({ limit: z.coerce.number().int().min(1).max(100) });

const json = (url: string, body: unknown, method = "POST") =>
  new Request(`http://localhost${url}`, {
    method,
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

const routes = route({
  notes: {
    index: { method: "GET", pattern: "/notes", query: Page },
    create: { method: "POST", pattern: "/notes", body: NoteInput },
    show: { method: "GET", pattern: "/notes/:id", params: Id },
    update: {
      method: "PUT",
      pattern: "/notes/:id",
      params: Id,
      body: NoteInput,
    },
  },
  plain: "/plain/:name",
});

function app() {
  const router = createRouter();
  router.map(routes, {
    actions: {
      notes: {
        actions: {
          index: ({ input }) => {
            const limit: number = input.query.limit;
            // The body has no schema: undefined, left unread.
            const body: undefined = input.body;
            // @ts-expect-error not a string
            const wrong: string = input.body;
            void [body, wrong];
            return Response.json({ limit });
          },
          create: ({ input }) => {
            const title: string = input.body.title;
            // @ts-expect-error title is a string
            const wrong: number = input.body.title;
            void wrong;
            return Response.json({ title, tags: input.body.tags }, {
              status: 201,
            });
          },
          show: ({ input, params }) => {
            const id: number = input.params.id;
            // context.params keeps the matched strings
            const raw: string = params.id;
            return Response.json({ id, raw });
          },
          update: ({ input }) =>
            Response.json({ id: input.params.id + 1, ...input.body }),
        },
      },
      plain: ({ input }) => {
        const name: string = input.params.name;
        return Response.json({ name, query: input.query, body: input.body });
      },
    },
  });
  return router;
}

Deno.test("schemas on routes: valid input reaches the handler as context.input", async () => {
  const router = app();
  const created = await router.fetch(
    json("/notes", { title: "Hi", extra: 1 }),
  );
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), { title: "Hi", tags: [] });

  const shown = await router.fetch(new Request("http://localhost/notes/41"));
  assert.deepEqual(await shown.json(), { id: 41, raw: "41" });

  const listed = await router.fetch(
    new Request("http://localhost/notes?limit=5"),
  );
  assert.deepEqual(await listed.json(), { limit: 5 });

  const updated = await router.fetch(
    json("/notes/1", { title: "New", tags: ["a"] }, "PUT"),
  );
  assert.deepEqual(await updated.json(), { id: 2, title: "New", tags: ["a"] });
});

Deno.test("schemas on routes: params and query failing answer 400 with fieldErrors", async () => {
  const router = app();
  const badId = await router.fetch(new Request("http://localhost/notes/abc"));
  assert.equal(badId.status, 400);
  const body = await badId.json();
  assert.equal(body.error, "Invalid path parameters");
  assert.deepEqual(Object.keys(body.fieldErrors), ["id"]);

  const badPage = await router.fetch(
    new Request("http://localhost/notes?limit=0"),
  );
  assert.equal(badPage.status, 400);
  const page = await badPage.json();
  assert.equal(page.error, "Invalid query string");
  assert.deepEqual(Object.keys(page.fieldErrors), ["limit"]);

  // Params are checked before the body, which stays unread.
  const both = await router.fetch(json("/notes/x", { title: "" }, "PUT"));
  assert.equal(both.status, 400);
});

Deno.test("schemas on routes: a body failing answers 422 with fieldErrors; the reader's errors keep their status", async () => {
  const router = app();
  const invalid = await router.fetch(
    json("/notes", { title: "", tags: ["a", 2] }),
  );
  assert.equal(invalid.status, 422);
  const errors = await invalid.json();
  assert.equal(errors.error, "Invalid request body");
  assert.deepEqual(errors.fieldErrors.title, ["Title is required"]);
  assert.ok(errors.fieldErrors["tags[1]"]);

  const malformed = await router.fetch(json("/notes", '{"title": }'));
  assert.equal(malformed.status, 400);
  assert.match(await malformed.text(), /Malformed JSON at line 1/);

  const text = await router.fetch(
    new Request("http://localhost/notes", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hi",
    }),
  );
  assert.equal(text.status, 415);

  const none = await router.fetch(
    new Request("http://localhost/notes", { method: "POST" }),
  );
  assert.equal(none.status, 415);
});

Deno.test("schemas on routes: a form body is read by parseForm's rules", async () => {
  const router = app();
  const body = new URLSearchParams([["title", "From a form"], ["tags", "a"], [
    "tags",
    "b",
  ]]);
  const response = await router.fetch(
    new Request("http://localhost/notes", { method: "POST", body }),
  );
  assert.equal(response.status, 201);
  assert.deepEqual(await response.json(), {
    title: "From a form",
    tags: ["a", "b"],
  });

  const multipart = new FormData();
  multipart.set("title", "");
  const refused = await router.fetch(
    new Request("http://localhost/notes", { method: "POST", body: multipart }),
  );
  assert.equal(refused.status, 422);
  assert.deepEqual((await refused.json()).fieldErrors.title, [
    "Title is required",
  ]);
});

Deno.test("schemas on routes: a form parsed by formData() middleware is used as it is", async () => {
  const signup = form("signup", {
    names: { action: "submit" },
    schemas: { action: { body: z.object({ email: z.email() }) } },
  });
  const router = createRouter({ middleware: [formData()] });
  router.map(signup, {
    actions: {
      index: () => new Response("form"),
      submit: ({ input }) => new Response(`welcome ${input.body.email}`),
    },
  });
  const ok = await router.fetch(
    new Request("http://localhost/signup", {
      method: "POST",
      body: new URLSearchParams({ email: "ada@example.com" }),
    }),
  );
  assert.equal(await ok.text(), "welcome ada@example.com");
  const bad = await router.fetch(
    new Request("http://localhost/signup", {
      method: "POST",
      body: new URLSearchParams({ email: "nope" }),
    }),
  );
  assert.equal(bad.status, 422);
});

Deno.test("schemas on routes: onInvalid of the action, then of the router, answers instead", async () => {
  const seen: string[] = [];
  const router = createRouter({
    onInvalid: (invalid, context) => {
      seen.push(`router ${invalid.part} ${context.url.pathname}`);
      return new Response(`router: ${invalid.part}`, { status: 400 });
    },
  });
  const signup = form("signup", {
    schemas: { action: { body: z.object({ email: z.email("Bad email") }) } },
  });
  router.map(signup, {
    actions: {
      index: () => new Response("form"),
      action: {
        handler: () => new Response("ok"),
        onInvalid: (invalid) => {
          seen.push(`action ${invalid.status}`);
          return new Response(
            `<p>${invalid.fieldErrors.email?.[0]}</p>` +
              `<input value="${String(invalid.values?.email)}">`,
            { status: 422, headers: { "content-type": "text/html" } },
          );
        },
      },
    },
  });
  router.map(
    routes.notes.show,
    ({ input }) => new Response(`${input.params.id}`),
  );

  const page = await router.fetch(
    new Request("http://localhost/signup", {
      method: "POST",
      body: new URLSearchParams({ email: "x" }),
    }),
  );
  assert.equal(page.status, 422);
  assert.equal(await page.text(), '<p>Bad email</p><input value="x">');

  const other = await router.fetch(new Request("http://localhost/notes/z"));
  assert.equal(await other.text(), "router: params");
  assert.deepEqual(seen, ["action 422", "router params /notes/z"]);
});

Deno.test("schemas on routes: resources() schemas are keyed by default names, even renamed", async () => {
  const notes = resources("notes", {
    only: ["index", "show", "create"],
    names: { index: "list", show: "view" },
    schemas: {
      index: { query: Page },
      show: { params: Id },
      create: { body: NoteInput },
    },
  });
  assert.equal(notes.list.schemas?.query, Page);
  assert.equal(notes.view.schemas?.params, Id);
  const router = createRouter();
  router.map(notes, {
    actions: {
      list: ({ input }) => Response.json(input.query.limit * 2),
      view: ({ input }) => Response.json(input.params.id * 2),
      create: ({ input }) => Response.json(input.body.title),
    },
  });
  assert.equal(
    await (await router.fetch(new Request("http://localhost/notes?limit=4")))
      .json(),
    8,
  );
  assert.equal(
    await (await router.fetch(new Request("http://localhost/notes/21"))).json(),
    42,
  );
  assert.equal(
    (await router.fetch(new Request("http://localhost/notes/0"))).status,
    400,
  );
  assert.throws(
    () =>
      resources("notes", {
        // @ts-expect-error "list" is not a default route name
        schemas: { list: { query: Page } },
      }),
    /unknown route "list" in "schemas"; expected one of index, new, show/,
  );
});

Deno.test("schemas on routes: router.get/post with a Route carrying schemas validate too", async () => {
  const router = createRouter();
  const show = new Route("GET", "/items/:id", { params: Id });
  router.get(show, ({ input }) => Response.json(input.params.id + 1));
  router.post(
    new Route("POST", "/items", { body: v.object({ name: v.string() }) }),
    // Middleware runs before validation: it may refuse first.
    ({ headers }) => {
      if (!headers.has("x-key")) return new Response(null, { status: 401 });
    },
    ({ input }) => new Response(input.body.name.toUpperCase()),
  );
  router.get("/raw/:id", ({ input }) => Response.json(input));
  assert.equal(
    await (await router.fetch(new Request("http://localhost/items/1"))).json(),
    2,
  );
  assert.equal(
    (await router.fetch(new Request("http://localhost/items/-1"))).status,
    400,
  );
  const unauthorized = await router.fetch(json("/items", { name: 1 }));
  assert.equal(unauthorized.status, 401);
  const request = json("/items", { name: 1 });
  request.headers.set("x-key", "k");
  const invalid = await router.fetch(request);
  assert.equal(invalid.status, 422);
  assert.deepEqual(Object.keys((await invalid.json()).fieldErrors), ["name"]);
  const okRequest = json("/items", { name: "box" });
  okRequest.headers.set("x-key", "k");
  assert.equal(await (await router.fetch(okRequest)).text(), "BOX");
  // Without schemas, input holds the params and nothing is read.
  assert.deepEqual(
    await (await router.fetch(new Request("http://localhost/raw/7"))).json(),
    { params: { id: "7" } },
  );
});

Deno.test("schemas on routes: the router's input limits apply to validated bodies", async () => {
  const router = createRouter({ input: { json: { maxBytes: 64 } } });
  router.post(
    new Route("POST", "/n", { body: z.object({ t: z.string() }) }),
    ({ input }) => new Response(input.body.t),
  );
  const big = await router.fetch(json("/n", { t: "x".repeat(100) }));
  assert.equal(big.status, 413);
  const small = await router.fetch(json("/n", { t: "ok" }));
  assert.equal(await small.text(), "ok");
});

Deno.test("schemas on routes: a schema that is not a Standard Schema is a TypeError when the route is made", () => {
  assert.throws(
    // @ts-expect-error not a schema
    () => route({ x: { method: "POST", pattern: "/x", body: { parse() {} } } }),
    /Route schema "body" must be a Standard Schema/,
  );
});
