/**
 * Cases ported from Remix: remix-run/remix
 * `packages/fetch-router/src/lib/route-helpers/` `resources.test.ts`,
 * `resource.test.ts` and `form.test.ts`, commit
 * 0b25fab078508d1565fdd68377a2629b53031e2b: the routes each helper makes
 * (names, methods, patterns, key order) for our `resources()`,
 * `resource()` and `form()`. Each case names its `it()`.
 *
 * Left out, and why:
 * - the type-level `Assert<IsEqual<...>>` blocks: ours are checked by
 *   route_test.ts and resources_test.ts;
 * - `method.test.ts` (`route.get(...)`-style helper methods in a route
 *   map): our route maps take `{ method, pattern }` objects instead;
 * - `route-map.test.ts`: Remix's `createRoutes` internals; `route()` is
 *   tested in route_test.ts and join_test.ts.
 */
import assert from "node:assert/strict";
import {
  form,
  resource,
  resources,
  Route,
  route,
} from "@fetchkit/toolkit/fetch-router/routes";

type Expected = Record<string, readonly [string, string]>;

/** Checks a route map's keys (in order) and each route's method and pattern. */
function assertRoutes(name: string, made: object, expected: Expected): void {
  assert.deepEqual(Object.keys(made), Object.keys(expected), `${name}: keys`);
  for (const [key, [method, pattern]] of Object.entries(expected)) {
    const value = (made as Record<string, unknown>)[key];
    assert.ok(value instanceof Route, `${name}: ${key} is a Route`);
    assert.deepEqual(
      [value.method, value.pattern],
      [method, pattern],
      `${name}: ${key}`,
    );
  }
}

const BOOKS: Expected = {
  index: ["GET", "/books"],
  new: ["GET", "/books/new"],
  show: ["GET", "/books/:id"],
  create: ["POST", "/books"],
  edit: ["GET", "/books/:id/edit"],
  update: ["PUT", "/books/:id"],
  destroy: ["DELETE", "/books/:id"],
};

Deno.test("remix resources.test.ts › the routes resources() makes", () => {
  const cases: [string, object, Expected][] = [
    ["creates resources with index route", resources("books"), BOOKS],
    [
      "creates resources with custom param",
      resources("posts", {
        param: "slug",
      }),
      {
        index: ["GET", "/posts"],
        new: ["GET", "/posts/new"],
        show: ["GET", "/posts/:slug"],
        create: ["POST", "/posts"],
        edit: ["GET", "/posts/:slug/edit"],
        update: ["PUT", "/posts/:slug"],
        destroy: ["DELETE", "/posts/:slug"],
      },
    ],
    [
      "creates resources with only option",
      resources("books", { only: ["index", "show", "create"] }),
      {
        index: ["GET", "/books"],
        show: ["GET", "/books/:id"],
        create: ["POST", "/books"],
      },
    ],
    [
      "creates resources with exclude option",
      resources("books", { exclude: ["new", "edit", "update", "destroy"] }),
      {
        index: ["GET", "/books"],
        show: ["GET", "/books/:id"],
        create: ["POST", "/books"],
      },
    ],
    [
      "creates resources with custom param and only option",
      resources("articles", { only: ["index", "show"], param: "slug" }),
      { index: ["GET", "/articles"], show: ["GET", "/articles/:slug"] },
    ],
    [
      "creates resources with custom route names",
      resources("books", {
        names: {
          index: "list",
          new: "newForm",
          show: "view",
          create: "store",
          edit: "editForm",
          update: "save",
          destroy: "delete",
        },
      }),
      {
        list: ["GET", "/books"],
        newForm: ["GET", "/books/new"],
        view: ["GET", "/books/:id"],
        store: ["POST", "/books"],
        editForm: ["GET", "/books/:id/edit"],
        save: ["PUT", "/books/:id"],
        delete: ["DELETE", "/books/:id"],
      },
    ],
    [
      "creates resources with partial custom route names",
      resources("books", {
        names: { index: "list", show: "view", create: "store" },
      }),
      {
        list: ["GET", "/books"],
        new: ["GET", "/books/new"],
        view: ["GET", "/books/:id"],
        store: ["POST", "/books"],
        edit: ["GET", "/books/:id/edit"],
        update: ["PUT", "/books/:id"],
        destroy: ["DELETE", "/books/:id"],
      },
    ],
    [
      "creates resources with custom route names and only option",
      resources("books", {
        only: ["index", "show"],
        names: { index: "list", show: "view", create: "store" },
      }),
      { list: ["GET", "/books"], view: ["GET", "/books/:id"] },
    ],
    [
      "creates resources with custom route names and custom param",
      resources("posts", {
        param: "slug",
        names: {
          index: "list",
          show: "view",
          edit: "editForm",
          update: "save",
          destroy: "delete",
        },
      }),
      {
        list: ["GET", "/posts"],
        new: ["GET", "/posts/new"],
        view: ["GET", "/posts/:slug"],
        create: ["POST", "/posts"],
        editForm: ["GET", "/posts/:slug/edit"],
        save: ["PUT", "/posts/:slug"],
        delete: ["DELETE", "/posts/:slug"],
      },
    ],
  ];
  for (const [name, made, expected] of cases) {
    assertRoutes(name, made, expected);
  }
});

Deno.test("remix resources.test.ts › creates nested resources", () => {
  const routes = route({
    brands: {
      ...resources("brands"),
      products: resources("brands/:brandId/products"),
    },
  });
  const { products, ...brands } = routes.brands;
  assertRoutes("brands", brands, {
    index: ["GET", "/brands"],
    new: ["GET", "/brands/new"],
    show: ["GET", "/brands/:id"],
    create: ["POST", "/brands"],
    edit: ["GET", "/brands/:id/edit"],
    update: ["PUT", "/brands/:id"],
    destroy: ["DELETE", "/brands/:id"],
  });
  assertRoutes("products", products, {
    index: ["GET", "/brands/:brandId/products"],
    new: ["GET", "/brands/:brandId/products/new"],
    show: ["GET", "/brands/:brandId/products/:id"],
    create: ["POST", "/brands/:brandId/products"],
    edit: ["GET", "/brands/:brandId/products/:id/edit"],
    update: ["PUT", "/brands/:brandId/products/:id"],
    destroy: ["DELETE", "/brands/:brandId/products/:id"],
  });
});

Deno.test("remix resources.test.ts / resource.test.ts › throws if both only and exclude are specified", () => {
  assert.throws(
    () => resources("books", { only: ["show"], exclude: ["destroy"] } as never),
    TypeError,
  );
  assert.throws(
    () => resource("book", { only: ["show"], exclude: ["destroy"] } as never),
    TypeError,
  );
});

Deno.test("remix resource.test.ts › the routes resource() makes", () => {
  const cases: [string, object, Expected][] = [
    ["creates a resource", resource("book"), {
      new: ["GET", "/book/new"],
      show: ["GET", "/book"],
      create: ["POST", "/book"],
      edit: ["GET", "/book/edit"],
      update: ["PUT", "/book"],
      destroy: ["DELETE", "/book"],
    }],
    [
      "creates a resource with only option",
      resource("book", { only: ["show", "update"] }),
      { show: ["GET", "/book"], update: ["PUT", "/book"] },
    ],
    [
      "creates a resource with exclude option",
      resource("book", { exclude: ["new", "create", "edit", "destroy"] }),
      { show: ["GET", "/book"], update: ["PUT", "/book"] },
    ],
    [
      "creates a resource with custom route names",
      resource("book", {
        names: {
          show: "view",
          new: "newForm",
          create: "store",
          edit: "editForm",
          update: "save",
          destroy: "delete",
        },
      }),
      {
        newForm: ["GET", "/book/new"],
        view: ["GET", "/book"],
        store: ["POST", "/book"],
        editForm: ["GET", "/book/edit"],
        save: ["PUT", "/book"],
        delete: ["DELETE", "/book"],
      },
    ],
    [
      "creates a resource with partial custom route names",
      resource("book", { names: { show: "view", create: "store" } }),
      {
        new: ["GET", "/book/new"],
        view: ["GET", "/book"],
        store: ["POST", "/book"],
        edit: ["GET", "/book/edit"],
        update: ["PUT", "/book"],
        destroy: ["DELETE", "/book"],
      },
    ],
    [
      "creates a resource with custom route names and only option",
      resource("book", {
        only: ["show", "create"],
        names: { show: "view", create: "store", update: "save" },
      }),
      { view: ["GET", "/book"], store: ["POST", "/book"] },
    ],
    [
      "creates a resource with custom route names and exclude option",
      resource("book", {
        exclude: ["new", "edit", "destroy"],
        names: { show: "view", create: "store", update: "save" },
      }),
      {
        view: ["GET", "/book"],
        store: ["POST", "/book"],
        save: ["PUT", "/book"],
      },
    ],
  ];
  for (const [name, made, expected] of cases) {
    assertRoutes(name, made, expected);
  }
});

Deno.test("remix form.test.ts › the routes form() makes", () => {
  const cases: [string, object, Expected][] = [
    [
      "creates a route map with index and action routes",
      form("login"),
      { index: ["GET", "/login"], action: ["POST", "/login"] },
    ],
    [
      "supports a custom form method",
      form("settings", { formMethod: "PUT" }),
      { index: ["GET", "/settings"], action: ["PUT", "/settings"] },
    ],
    [
      "supports a custom index name",
      form("profile", { names: { index: "show" } }),
      { show: ["GET", "/profile"], action: ["POST", "/profile"] },
    ],
    [
      "supports a custom action name",
      form("signup", { names: { action: "register" } }),
      { index: ["GET", "/signup"], register: ["POST", "/signup"] },
    ],
    [
      "supports custom names for both index and action",
      form("contact", { names: { index: "show", action: "submit" } }),
      { show: ["GET", "/contact"], submit: ["POST", "/contact"] },
    ],
    [
      "supports custom names with custom form method",
      form("account", {
        formMethod: "PATCH",
        names: { index: "edit", action: "update" },
      }),
      { edit: ["GET", "/account"], update: ["PATCH", "/account"] },
    ],
  ];
  for (const [name, made, expected] of cases) {
    assertRoutes(name, made, expected);
  }
});

Deno.test("remix form.test.ts › creates nested forms", () => {
  const routes = route({
    account: { ...form("account"), settings: form("account/settings") },
  });
  const { settings, ...account } = routes.account;
  assertRoutes("account", account, {
    index: ["GET", "/account"],
    action: ["POST", "/account"],
  });
  assertRoutes("settings", settings, {
    index: ["GET", "/account/settings"],
    action: ["POST", "/account/settings"],
  });
});
