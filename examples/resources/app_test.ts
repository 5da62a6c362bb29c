import assert from "node:assert/strict";
import { createApp, routes } from "./app.ts";

const base = "http://localhost";
const form = (fields: Record<string, string>) => new URLSearchParams(fields);

Deno.test("resources example: the seven RESTful endpoints, end to end", async () => {
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
  assert.equal(viaForm.headers.get("location"), "/?saved=Form");
  assert.equal((await (await call("GET", "/posts/1")).json()).title, "Form");
  // Browsers get pages for the list and a post, API clients JSON.
  const html = { accept: "text/html" };
  const listPage = await (await call("GET", "/posts", undefined, html)).text();
  assert.match(listPage, /<h1>Posts<\/h1>/);
  assert.match(listPage, /<a href="\/posts\/1">Form<\/a>/);
  const showPage = await (await call("GET", "/posts/1", undefined, html))
    .text();
  assert.match(showPage, /<h1>Form<\/h1>/);
  assert.match(showPage, /Delete “Form” for good\?/);
  // The notice after an action comes from the redirect's query, escaped.
  const notice = await (await call("GET", "/?deleted=%3Cb%3E", undefined, html))
    .text();
  assert.match(
    notice,
    /<p class="notice" role="status">Deleted “&lt;b&gt;”\.<\/p>/,
  );

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

Deno.test("resources example: create and update validate the post, 422 with the errors", async () => {
  const app = createApp({ log: null });
  const call = (
    method: string,
    path: string,
    body?: BodyInit,
    headers?: HeadersInit,
  ) => app.fetch(new Request(base + path, { method, body, headers }));
  const browser = { accept: "text/html" };

  // API clients get the errors by field as JSON.
  const empty = await call("POST", "/posts", form({ title: "   ", body: "b" }));
  assert.equal(empty.status, 422);
  assert.deepEqual(await empty.json(), {
    fieldErrors: { title: ["Title is required"] },
    formErrors: [],
  });
  const missing = await call("POST", "/posts", form({ body: "b" }));
  assert.equal(missing.status, 422);
  assert.deepEqual(Object.keys((await missing.json()).fieldErrors), ["title"]);

  // Browsers get the form again: values refilled, the error beside its field.
  const long = "<b>" + "x".repeat(198);
  const tooLong = await call(
    "POST",
    "/posts",
    form({ title: long, body: "kept <body>" }),
    browser,
  );
  assert.equal(tooLong.status, 422);
  assert.match(tooLong.headers.get("content-type")!, /^text\/html/);
  const page = await tooLong.text();
  assert.match(page, /<form method="post" action="\/posts">/);
  assert.match(page, /value="&lt;b&gt;x{198}"\s+aria-invalid="true"/);
  assert.match(
    page,
    /<\/label>\s*<p class="error" id="title-error">Title must be at most 200 characters<\/p>/,
  );
  assert.match(page, /kept &lt;body&gt;<\/textarea>/);
  assert.deepEqual(await (await call("GET", "/posts")).json(), []);

  // 200 characters (after trimming) are accepted.
  const exact = await call(
    "POST",
    "/posts",
    form({ title: ` ${"y".repeat(200)} ` }),
  );
  assert.equal(exact.status, 201);
  assert.deepEqual(await exact.json(), {
    id: 1,
    title: "y".repeat(200),
    body: "",
  });

  // update: the same rules, the post unchanged, the PUT form rendered again.
  const badUpdate = await call(
    "POST",
    "/posts/1",
    form({ _method: "PUT", title: "", body: "new" }),
    browser,
  );
  assert.equal(badUpdate.status, 422);
  const editPage = await badUpdate.text();
  assert.match(editPage, /name="_method" value="PUT"/);
  assert.match(editPage, /<form method="post" action="\/posts\/1">/);
  assert.match(editPage, /id="title-error">Title is required</);
  assert.match(editPage, /new<\/textarea>/);
  assert.equal(
    (await (await call("GET", "/posts/1")).json()).title,
    "y".repeat(200),
  );
  const apiUpdate = await call("PUT", "/posts/1", form({ title: "" }));
  assert.equal(apiUpdate.status, 422);
  assert.equal(
    (await call("PUT", "/posts/99", form({ title: "" }))).status,
    404,
  );

  // A hostile field name is a form error, not a crash.
  const hostile = await call(
    "POST",
    "/posts",
    form({ title: "ok", "__proto__.admin": "1" }),
  );
  assert.equal(hostile.status, 422);
  assert.deepEqual(await hostile.json(), {
    fieldErrors: {},
    formErrors: [
      'Field name "__proto__.admin" is refused: "__proto__" cannot be a key (prototype pollution)',
    ],
  });
});

Deno.test("resources example: browsers get a 404 page, API clients plain text", async () => {
  const app = createApp({ log: null });
  for (const path of ["/no-such-page", "/posts/99/edit", "/posts/99"]) {
    const page = await app.fetch(
      new Request(base + path, { headers: { Accept: "text/html" } }),
    );
    assert.equal(page.status, 404);
    const text = await page.text();
    assert.match(text, /<html lang="en">/, path);
    assert.match(text, /<main>\s*<h1>Page not found<\/h1>/, path);
    const plain = await app.fetch(new Request(base + path));
    assert.equal(plain.status, 404);
    assert.equal(await plain.text(), "Not Found");
  }
});
