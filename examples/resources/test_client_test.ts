// The resources example as a browser uses it, through createTestClient():
// the HTML forms, methodOverride()'s hidden _method, the 303 back to the
// list followed, all in process. Routes are the targets, so a renamed
// pattern breaks these tests at type-check time, not at run time.
import assert from "node:assert/strict";
import { createTestClient } from "@fetchkit/toolkit/testing";
import { createApp, routes } from "./app.ts";

function browser() {
  // Forms submitted by a browser ask for HTML; so does every call here.
  return createTestClient(createApp({ log: null }), {
    headers: { accept: "text/html" },
    redirect: "follow",
  });
}

Deno.test("resources example (test client): write, edit and delete a post through the HTML forms", async () => {
  const client = browser();
  assert.match(await client.html(routes.home), /No posts yet/);
  assert.match(
    await client.html(routes.posts.new),
    /<form method="post" action="\/posts">/,
  );

  const list = await client.post(routes.posts.create, {
    form: { title: "Hello <world>", body: "first" },
  });
  assert.equal(list.status, 200);
  assert.equal(list.redirected, true, "the 303 back to the list was followed");
  // The list, saying what was done (the notice rides in the query).
  const listUrl = new URL(list.url);
  assert.equal(listUrl.pathname, routes.home.href());
  assert.equal(listUrl.searchParams.get("created"), "Hello <world>");
  const listPage = await list.text();
  assert.match(listPage, /<a href="\/posts\/1">Hello &lt;world&gt;<\/a>/);
  assert.match(listPage, /role="status">Created “Hello &lt;world&gt;”.</);

  const edit = await client.html(routes.posts.edit, { params: { id: 1 } });
  assert.match(edit, /name="_method" value="PUT"/);
  const updated = await client.post(routes.posts.update, {
    params: { id: 1 },
    form: { _method: "PUT", title: "Renamed", body: "second" },
  });
  const afterSave = await updated.text();
  assert.match(afterSave, /<a href="\/posts\/1">Renamed<\/a>/);
  assert.match(afterSave, /Saved “Renamed”./);

  // The JSON view of the same record (an API client's Accept).
  const record = await client.get(routes.posts.show, {
    params: { id: 1 },
    headers: { accept: "application/json" },
  });
  assert.deepEqual(await record.json(), {
    id: 1,
    title: "Renamed",
    body: "second",
  });

  const afterDelete = await client.post(routes.posts.destroy, {
    params: { id: 1 },
    form: { _method: "DELETE" },
  });
  const afterDeletePage = await afterDelete.text();
  assert.match(afterDeletePage, /No posts yet/);
  assert.match(afterDeletePage, /Deleted “Renamed”./);
});

Deno.test("resources example (test client): a form that fails validation comes back with its values, 422", async () => {
  const client = browser();
  const again = await client.post(routes.posts.create, {
    form: { title: "  ", body: "kept <b>" },
  });
  assert.equal(again.status, 422);
  assert.equal(again.redirected, false);
  const page = await again.text();
  assert.match(page, /id="title-error">Title is required</);
  assert.match(page, /kept &lt;b&gt;<\/textarea>/);
  // Nothing was stored.
  assert.match(await client.html(routes.home), /No posts yet/);
});

Deno.test("resources example (test client): a missing post is the 404 page", async () => {
  const client = browser();
  await assert.rejects(
    client.html(routes.posts.show, {
      params: { id: 99 },
      headers: { accept: "application/json" },
    }),
    /answered 404 with Content-Type text\/plain/,
  );
  const missing = await client.get(routes.posts.edit, { params: { id: 99 } });
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /<h1>Page not found<\/h1>/);
});
