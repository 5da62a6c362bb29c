// The test client's calls are typed from the route map: a route's params
// are checked against its pattern, a json body against its body schema, and
// a group of routes only fits a call whose method it has a route for.
// Checked by `deno check` (and run, so the calls are real).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import { createTestClient } from "@fetchkit/toolkit/testing";
import * as z from "zod";

const routes = route({
  auth: route("auth", {
    login: form("login"),
    logout: { method: "POST", pattern: "logout" },
  }),
  posts: resources("posts", { only: ["show", "index"] }),
  notes: {
    method: "POST",
    pattern: "/notes",
    body: z.object({ title: z.string() }),
  },
  files: { method: "GET", pattern: "/files(/*path)" },
});

Deno.test("createTestClient types: params, json bodies and groups are checked against the route map", async () => {
  const router = createRouter();
  router.any(
    "/*rest",
    ({ request }) =>
      new Response(`${request.method} ${new URL(request.url).pathname}`),
  );
  const client = createTestClient(router);
  const text = async (response: Promise<Response>) =>
    await (await response).text();

  // The call: a form() group, posted to its action.
  assert.equal(
    await text(client.post(routes.auth.login, { form: { email: "a@b.c" } })),
    "POST /auth/login",
  );
  assert.equal(
    await text(client.get(routes.posts.show, { params: { id: 1 } })),
    "GET /posts/1",
  );
  // An optional wildcard: params may be left out.
  assert.equal(await text(client.get(routes.files)), "GET /files");
  assert.equal(
    await text(client.get(routes.files, { params: { path: "a/b" } })),
    "GET /files/a/b",
  );
  assert.equal(
    await text(client.post(routes.notes, { json: { title: "t" } })),
    "POST /notes",
  );

  // The checks below are the test: each line must fail to type-check.
  const wrong = () => {
    // @ts-expect-error a required param is missing
    client.get(routes.posts.show);
    // @ts-expect-error params without the required id
    client.get(routes.posts.show, { params: {} });
    // @ts-expect-error a param the pattern does not have
    client.get(routes.posts.show, { params: { id: 1, slug: "x" } });
    // @ts-expect-error the json body does not fit the route's body schema
    client.post(routes.notes, { json: { title: 1 } });
    // @ts-expect-error form() has no PUT route
    client.put(routes.auth.login, { form: {} });
    // @ts-expect-error a form field cannot be an object
    client.post(routes.auth.login, { form: { nested: { a: 1 } } });
    // @ts-expect-error a path takes no params
    client.get("/posts/1", { params: { id: 1 } });
  };
  assert.equal(typeof wrong, "function");
});
