import assert from "node:assert/strict";
import { createApp, routes } from "./app.ts";

const base = "http://localhost";
const form = (fields: Record<string, string>) => new URLSearchParams(fields);

Deno.test("resources example: the seed's endpoint table, end to end", async () => {
  const app = createApp({ log: null });
  const call = (
    method: string,
    path: string,
    body?: BodyInit,
    headers?: HeadersInit,
  ) => app.fetch(new Request(base + path, { method, body, headers }));

  assert.deepEqual(
    await (await call("GET", routes.posts.index.href())).json(),
    [],
  );

  const newForm = await call("GET", routes.posts.new.href());
  assert.equal(newForm.status, 200);
  assert.match(newForm.headers.get("content-type")!, /^text\/html/);
  assert.match(await newForm.text(), /<form method="post" action="\/posts">/);

  const created = await call(
    "POST",
    routes.posts.create.href(),
    form({ title: "Hi <there>", body: "b" }),
  );
  assert.equal(created.status, 201);
  assert.deepEqual(await created.json(), {
    id: 1,
    title: "Hi <there>",
    body: "b",
  });

  assert.deepEqual(await (await call("GET", "/posts/1")).json(), {
    id: 1,
    title: "Hi <there>",
    body: "b",
  });
  const missing = await call("GET", "/posts/99");
  assert.equal(missing.status, 404);
  assert.equal(await missing.text(), "Not Found");

  const edit = await call("GET", "/posts/1/edit");
  const editHtml = await edit.text();
  assert.match(editHtml, /value="Hi &lt;there&gt;"/, "values are escaped");
  assert.match(editHtml, /name="_method" value="PUT"/);
  assert.equal((await call("GET", "/posts/99/edit")).status, 404);

  const updated = await call(
    "PUT",
    "/posts/1",
    form({ title: "New", body: "c" }),
  );
  assert.deepEqual(await updated.json(), { id: 1, title: "New", body: "c" });

  // An HTML form reaches PUT and DELETE through methodOverride().
  const viaForm = await call(
    "POST",
    "/posts/1",
    form({ _method: "PUT", title: "Form", body: "" }),
    {
      accept: "text/html",
    },
  );
  assert.equal(viaForm.status, 303);
  assert.equal(viaForm.headers.get("location"), "/");
  assert.equal((await (await call("GET", "/posts/1")).json()).title, "Form");

  const destroyed = await call("DELETE", "/posts/1");
  assert.equal(destroyed.status, 204);
  assert.equal(destroyed.body, null);
  assert.equal((await call("DELETE", "/posts/1")).status, 404);
});

Deno.test("resources example: multipart bodies work too", async () => {
  const app = createApp({ log: null });
  const body = new FormData();
  body.set("title", "From multipart \u00e9");
  body.set("body", "x");
  const response = await app.fetch(
    new Request(base + "/posts", { method: "POST", body }),
  );
  assert.equal(response.status, 201);
  assert.equal((await response.json()).title, "From multipart \u00e9");
});
