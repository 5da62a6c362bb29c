import assert from "node:assert/strict";
import {
  form,
  resource,
  resources,
  type Route,
} from "@fetchkit/toolkit/fetch-router/routes";

function shape(map: Record<string, Route>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(map).map(([name, r]) => [name, `${r.method} ${r.pattern}`]),
  );
}

Deno.test("form() makes index (GET) and action (POST) on one pattern", () => {
  assert.deepEqual(shape(form("contact")), {
    index: "GET /contact",
    action: "POST /contact",
  });
});

Deno.test("form() honours formMethod and names", () => {
  assert.deepEqual(shape(form("/settings", { formMethod: "put" })), {
    index: "GET /settings",
    action: "PUT /settings",
  });
  assert.deepEqual(
    shape(form("login", { names: { index: "show", action: "submit" } })),
    {
      show: "GET /login",
      submit: "POST /login",
    },
  );
  assert.throws(
    () => form("x", { names: { index: "a", action: "a" } }),
    TypeError,
  );
});

Deno.test("resources() makes the seven RESTful routes (index, new, create, show, edit, update, destroy)", () => {
  assert.deepEqual(shape(resources("posts")), {
    index: "GET /posts",
    new: "GET /posts/new",
    show: "GET /posts/:id",
    create: "POST /posts",
    edit: "GET /posts/:id/edit",
    update: "PUT /posts/:id",
    destroy: "DELETE /posts/:id",
  });
});

Deno.test("resources() applies only, exclude, param and names", () => {
  assert.deepEqual(
    Object.keys(resources("posts", { only: ["index", "show"] })),
    ["index", "show"],
  );
  assert.deepEqual(
    Object.keys(resources("posts", { exclude: ["new", "edit"] })),
    [
      "index",
      "show",
      "create",
      "update",
      "destroy",
    ],
  );
  assert.equal(
    resources("posts", { param: "slug" }).edit.pattern,
    "/posts/:slug/edit",
  );
  const renamed = resources("posts", {
    only: ["index", "destroy"],
    names: { index: "list", destroy: "remove" },
  });
  assert.deepEqual(shape(renamed), {
    list: "GET /posts",
    remove: "DELETE /posts/:id",
  });
});

Deno.test("resources() rejects only with exclude, unknown names and bad params", () => {
  assert.throws(
    () => resources("posts", { only: ["index"], exclude: ["show"] }),
    { name: "TypeError", message: /"only" or "exclude", not both/ },
  );
  assert.throws(
    // @ts-expect-error not a ResourcesMethod
    () => resources("posts", { only: ["list"] }),
    { name: "TypeError", message: /unknown route "list" in "only"/ },
  );
  assert.throws(
    () => resources("posts", { param: "a-b" }),
    /Invalid resources param/,
  );
  assert.throws(
    () => resources("posts", { names: { index: "x", show: "x" } }),
    /two routes are named "x"/,
  );
});

Deno.test("resources() nests under a parent's parameter", () => {
  const products = resources("brands/:brandId/products");
  assert.equal(products.index.pattern, "/brands/:brandId/products");
  assert.equal(products.show.pattern, "/brands/:brandId/products/:id");
  assert.equal(
    products.show.href({ brandId: 3, id: 9 }),
    "/brands/3/products/9",
  );
});

Deno.test("resource() makes a singleton's six routes, without index or :id", () => {
  assert.deepEqual(shape(resource("profile")), {
    new: "GET /profile/new",
    show: "GET /profile",
    create: "POST /profile",
    edit: "GET /profile/edit",
    update: "PUT /profile",
    destroy: "DELETE /profile",
  });
  assert.deepEqual(
    Object.keys(resource("profile", { only: ["show", "edit", "update"] })),
    [
      "show",
      "edit",
      "update",
    ],
  );
  assert.deepEqual(
    Object.keys(resource("profile", { exclude: ["new", "create", "destroy"] })),
    [
      "show",
      "edit",
      "update",
    ],
  );
  assert.throws(
    // @ts-expect-error a singleton has no index
    () => resource("profile", { only: ["index"] }),
    /unknown route "index"/,
  );
});
