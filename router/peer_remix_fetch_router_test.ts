/**
 * Cases ported from Remix: remix-run/remix `packages/fetch-router/src/lib/`
 * `router.test.ts`, `middleware.test.ts` and `request-context.test.ts`,
 * commit 0b25fab078508d1565fdd68377a2629b53031e2b, translated to our API:
 * `router.fetch(request)` takes a `Request` (Remix also takes a URL and
 * init); `router.get(pattern, ...middleware, handler)` takes middleware as
 * arguments where Remix takes `{ middleware, handler }` (which ours takes
 * in `router.map` actions); the context is reached through a handler, not
 * built with `new RequestContext()`. Each test names its `describe` >
 * `it`.
 *
 * Where Remix's expectation differs from our documented decisions
 * (DESIGN.md), ours is asserted and the difference noted at the case:
 * - no route: the text is `Not Found` (Remix: `Not Found: /path`);
 * - a thrown error is answered `500 Internal Server Error` and handed to
 *   `onError` (Remix rejects `router.fetch`); the ports check that
 *   `onError` receives the error;
 * - `HEAD` answers carry no body, even from an explicit `HEAD` route;
 * - middleware that returns nothing continues the chain (Remix rejects:
 *   "Middleware must return a Response or call next()");
 * - `context.headers` is `request.headers` itself (Remix: a lazy copy);
 * - `get(FormData)` with nothing set throws a `TypeError` naming the
 *   middleware to add (Remix: `undefined`);
 * - a nested route map key in a controller's actions takes a nested
 *   controller (Remix rejects it: "Cannot map nested route map key").
 *
 * Left out, and why:
 * - the URL-and-init form of `router.fetch` ("replaces any corresponding
 *   options ..."): ours takes a `Request` only, as `Deno.serve` gives;
 * - `context.router`, custom matchers (`createRouter({ matcher })`),
 *   "adds mounted routes to custom matchers": no such options here;
 * - the search part of a mounted pattern (`/files/*path?download=true`):
 *   patterns match the pathname only; the pathname part is ported;
 * - `context.set(key, value, { property })` direct properties and the
 *   `ContextWithEntry` types: not in our context API;
 * - compile-time-only cases ("requires controllers to define actions under
 *   `actions`", "allows Action object form without middleware",
 *   `router-types.test.ts`): type tests, ours are in router_test.ts;
 * - `request-abort.test.ts`, `router-abort.test.ts`: request abort
 *   signals are the runtime's;
 * - `route-map.test.ts` and `route-helpers/*.test.ts`: ported in
 *   routes/peer_remix_route_helpers_test.ts.
 */
import assert from "node:assert/strict";
import {
  createContextKey,
  createRouter,
  type Middleware,
  type Router,
  type RouterOptions,
} from "@fetchkit/toolkit/fetch-router";
import { route } from "@fetchkit/toolkit/fetch-router/routes";

const ORIGIN = "https://remix.run";

async function fetchText(
  router: Router,
  path: string,
  init?: RequestInit,
): Promise<[number, string]> {
  const response = await router.fetch(new Request(ORIGIN + path, init));
  return [response.status, await response.text()];
}

/** A middleware that logs `name` and calls next(). */
function log(into: string[], name: string): Middleware {
  return (_context, next) => {
    into.push(name);
    return next();
  };
}

/** A router whose `onError` records what it is given. */
function catching(
  errors: unknown[],
  options: RouterOptions = {},
): Router {
  return createRouter({
    ...options,
    onError: (error) => {
      errors.push(error);
      return new Response("Internal Server Error", { status: 500 });
    },
  });
}

const R = "remix router.test.ts ›";

Deno.test(`${R} router.fetch() > fetches a route`, async () => {
  const router = createRouter();
  router.get("/", () => new Response("Home"));
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
});

Deno.test(`${R} router.fetch() > uses a Request input directly`, async () => {
  const router = createRouter();
  const request = new Request(ORIGIN);
  router.get("/", (context) => {
    assert.equal(context.request, request);
    return new Response("Home");
  });
  const response = await router.fetch(request);
  assert.equal(await response.text(), "Home");
});

Deno.test(`${R} router.fetch() > fetches a route with middleware`, async () => {
  const routes = route({ home: "/" });
  const requestLog: string[] = [];
  const router = createRouter();
  router.get(
    routes.home,
    log(requestLog, "middleware"),
    () => new Response("Home"),
  );
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
  assert.deepEqual(requestLog, ["middleware"]);
});

Deno.test(`${R} router.fetch() > runs router middleware before fetching a route`, async () => {
  const requestLog: string[] = [];
  const router = createRouter({
    middleware: [log(requestLog, "router middleware")],
  });
  router.get(
    route({ home: "/" }).home,
    log(requestLog, "action middleware"),
    () => new Response("Home"),
  );
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
  assert.deepEqual(requestLog, ["router middleware", "action middleware"]);
});

Deno.test(`${R} router.fetch() > fetches a route with specific method actions`, async () => {
  const home = route({ home: "/" }).home;
  const router = createRouter();
  router.get(home, () => new Response("GET"));
  router.head(home, () => new Response("HEAD"));
  router.post(home, () => new Response("POST"));
  router.put(home, () => new Response("PUT"));
  router.patch(home, () => new Response("PATCH"));
  router.delete(home, () => new Response("DELETE"));
  router.options(home, () => new Response("OPTIONS"));
  for (
    const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
  ) {
    // A HEAD answer has no body here, even from a HEAD route.
    assert.deepEqual(
      await fetchText(router, "", { method }),
      [200, method === "HEAD" ? "" : method],
      method,
    );
  }
});

Deno.test(`${R} router.fetch() > request headers reach middleware`, async () => {
  const requestLog: (string | null)[] = [];
  const router = createRouter();
  router.get("/", ({ headers }, next) => {
    requestLog.push(headers.get("From"));
    return next();
  }, () => new Response("Home"));
  await fetchText(router, "");
  await fetchText(router, "", { headers: { From: "admin@remix.run" } });
  assert.deepEqual(requestLog, [null, "admin@remix.run"]);
});

Deno.test(`${R} router.fetch() > runs router middleware even when there are no routes / no route matches`, async () => {
  for (const withRoute of [false, true]) {
    const requestLog: string[] = [];
    const router = createRouter({
      middleware: [log(requestLog, "middleware")],
    });
    if (withRoute) router.get("/", () => new Response("Home"));
    // Remix's text is "Not Found: /nonexistent"; ours "Not Found".
    assert.deepEqual(
      await fetchText(router, "/nonexistent"),
      [404, "Not Found"],
    );
    assert.deepEqual(requestLog, ["middleware"]);
  }
});

Deno.test(`${R} router.map() with single routes > maps a single route to a request handler`, async () => {
  const router = createRouter();
  router.map(route({ home: "/" }).home, () => new Response("Home"));
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
});

Deno.test(`${R} router.map() with single routes > maps a single route to an action with middleware`, async () => {
  const routes = route({ profile: "/profile/:id" });
  const requestLog: string[] = [];
  const router = createRouter();
  router.map(routes.profile, {
    middleware: [({ params }, next) => {
      requestLog.push(`middleware ${params.id}`);
      return next();
    }],
    handler() {
      requestLog.push("action");
      return new Response("OK");
    },
  });
  assert.deepEqual(await fetchText(router, "/profile/1"), [200, "OK"]);
  assert.deepEqual(requestLog, ["middleware 1", "action"]);
});

Deno.test(`${R} router.map() with single routes > matches any request method`, async () => {
  const router = createRouter();
  router.map(route({ any: "/" }).any, ({ method }) => new Response(method));
  for (
    const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
  ) {
    assert.deepEqual(
      await fetchText(router, "", { method }),
      [200, method === "HEAD" ? "" : method],
      method,
    );
  }
});

Deno.test(`${R} router.map() > maps route maps to controllers`, async () => {
  const routes = route({
    home: "/",
    blog: {
      index: { method: "GET", pattern: "/blog" },
      create: { method: "POST", pattern: "/blog" },
      show: "/blog/:id",
    },
  });
  const router = createRouter();
  router.map(routes, { actions: { home: () => new Response("Home") } });
  router.map(routes.blog, {
    actions: {
      index: () => new Response("Blog"),
      create: () => new Response("Blog Post Created"),
      show: ({ params }) => new Response(`Blog Post ${params.id}`),
    },
  });
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
  assert.deepEqual(await fetchText(router, "/blog"), [200, "Blog"]);
  assert.deepEqual(
    await fetchText(router, "/blog", { method: "POST" }),
    [200, "Blog Post Created"],
  );
  assert.deepEqual(await fetchText(router, "/blog/1"), [200, "Blog Post 1"]);
});

Deno.test(`${R} router.map() > maps a route map to actions with middleware`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.map(route({ home: "/" }), {
    middleware: [log(requestLog, "middleware")],
    actions: {
      home() {
        requestLog.push("action");
        return new Response("OK");
      },
    },
  });
  assert.deepEqual(await fetchText(router, "/"), [200, "OK"]);
  assert.deepEqual(requestLog, ["middleware", "action"]);
});

Deno.test(`${R} router.map() > rejects controllers without an object actions property`, () => {
  assert.throws(
    () =>
      createRouter().map(
        route({ home: "/" }),
        { actions: undefined } as never,
      ),
    (e: Error) => e instanceof TypeError && /"actions" object/.test(e.message),
  );
});

Deno.test(`${R} router.map() > rejects action objects without function handlers`, () => {
  assert.throws(
    () =>
      createRouter().map(
        route({ home: "/" }),
        { actions: { home: { handler: 1 } } } as never,
      ),
    (e: Error) =>
      e instanceof TypeError && /"home" must be a handler/.test(e.message),
  );
});

Deno.test(`${R} router.map() > nested route map keys in controller actions take a nested controller`, async () => {
  // Remix rejects this ("Cannot map nested route map key `blog`"); ours
  // maps the nested group with the nested controller.
  const routes = route({ home: "/", blog: { index: "/blog" } });
  const router = createRouter();
  router.map(routes, {
    actions: {
      home: () => new Response("Home"),
      blog: { actions: { index: () => new Response("Blog") } },
    },
  });
  assert.deepEqual(await fetchText(router, "/blog"), [200, "Blog"]);
});

Deno.test(`${R} router.map() > rejects unknown controller action keys`, () => {
  assert.throws(
    () =>
      createRouter().map(route({ home: "/" }), {
        actions: {
          home: () => new Response("Home"),
          missing: () => new Response("Missing"),
        },
      } as never),
    (e: Error) => e instanceof TypeError && /"missing"/.test(e.message),
  );
});

Deno.test(`${R} router.map() > requires direct leaf actions in controllers`, () => {
  assert.throws(
    () =>
      createRouter().map(route({ home: "/", about: "/about" }), {
        actions: { home: () => new Response("Home") },
      } as never),
    (e: Error) =>
      e instanceof TypeError && /No action for route "about"/.test(e.message),
  );
});

Deno.test(`${R} router.map() > applies controller middleware only to direct route actions`, async () => {
  const routes = route({ home: "/", blog: { index: "/blog" } });
  const requestLog: string[] = [];
  const router = createRouter();
  router.map(routes, {
    middleware: [log(requestLog, "outer middleware")],
    actions: {
      home() {
        requestLog.push("home");
        return new Response("Home");
      },
    },
  });
  router.map(routes.blog, {
    actions: {
      index() {
        requestLog.push("blog-index");
        return new Response("Blog");
      },
    },
  });
  assert.deepEqual(await fetchText(router, "/"), [200, "Home"]);
  assert.deepEqual(requestLog, ["outer middleware", "home"]);
  requestLog.length = 0;
  assert.deepEqual(await fetchText(router, "/blog"), [200, "Blog"]);
  assert.deepEqual(requestLog, ["blog-index"]);
});

Deno.test(`${R} router.map() > allows selective middleware by mapping specific nested route subtrees separately`, async () => {
  const routes = route({
    public: "/public",
    admin: { dashboard: "/admin/dashboard", users: "/admin/users" },
  });
  const requestLog: string[] = [];
  const router = createRouter();
  router.map(routes.public, () => {
    requestLog.push("public");
    return new Response("Public");
  });
  router.map(routes.admin, {
    middleware: [log(requestLog, "auth")],
    actions: {
      dashboard() {
        requestLog.push("dashboard");
        return new Response("Dashboard");
      },
      users() {
        requestLog.push("users");
        return new Response("Users");
      },
    },
  });
  assert.deepEqual(await fetchText(router, "/public"), [200, "Public"]);
  assert.deepEqual(requestLog, ["public"]);
  requestLog.length = 0;
  assert.deepEqual(
    await fetchText(router, "/admin/dashboard"),
    [200, "Dashboard"],
  );
  assert.deepEqual(requestLog, ["auth", "dashboard"]);
  requestLog.length = 0;
  assert.deepEqual(await fetchText(router, "/admin/users"), [200, "Users"]);
  assert.deepEqual(requestLog, ["auth", "users"]);
});

Deno.test(`${R} router.map() > runs both router and controller middleware`, async () => {
  const requestLog: string[] = [];
  const router = createRouter({
    middleware: [log(requestLog, "router middleware")],
  });
  router.map(route({ home: "/" }), {
    middleware: [log(requestLog, "controller middleware")],
    actions: {
      home() {
        requestLog.push("action");
        return new Response("OK");
      },
    },
  });
  assert.deepEqual(await fetchText(router, "/"), [200, "OK"]);
  assert.deepEqual(requestLog, [
    "router middleware",
    "controller middleware",
    "action",
  ]);
});

Deno.test(`${R} router.get() > maps a single route to a request handler, with middleware`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.get("/", () => new Response("Home"));
  router.get("/m", log(requestLog, "middleware"), () => {
    requestLog.push("action");
    return new Response("OK");
  });
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
  assert.deepEqual(await fetchText(router, "/m"), [200, "OK"]);
  assert.deepEqual(requestLog, ["middleware", "action"]);
});

Deno.test(`${R} action middleware > runs after router middleware`, async () => {
  const requestLog: string[] = [];
  const router = createRouter({
    middleware: [log(requestLog, "router middleware")],
  });
  router.get(
    "/",
    log(requestLog, "action middleware 1"),
    log(requestLog, "action middleware 2"),
    () => {
      requestLog.push("action");
      return new Response("OK");
    },
  );
  assert.deepEqual(await fetchText(router, "/"), [200, "OK"]);
  assert.deepEqual(requestLog, [
    "router middleware",
    "action middleware 1",
    "action middleware 2",
    "action",
  ]);
});

Deno.test(`${R} action middleware > runs only on the route it is defined on`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.get("/a", log(requestLog, "action middleware a"), () => {
    requestLog.push("action-a");
    return new Response("A");
  });
  router.get("/b", () => {
    requestLog.push("action-b");
    return new Response("B");
  });
  assert.deepEqual(await fetchText(router, "/a"), [200, "A"]);
  assert.deepEqual(requestLog, ["action middleware a", "action-a"]);
  requestLog.length = 0;
  assert.deepEqual(await fetchText(router, "/b"), [200, "B"]);
  assert.deepEqual(requestLog, ["action-b"]);
});

Deno.test(`${R} action middleware > works with empty middleware array / action objects that omit middleware`, async () => {
  const routes = route({ a: "/a", b: "/b" });
  const router = createRouter();
  router.map(routes, {
    actions: {
      a: { middleware: [], handler: () => new Response("A") },
      b: { handler: () => new Response("B") },
    },
  });
  assert.deepEqual(await fetchText(router, "/a"), [200, "A"]);
  assert.deepEqual(await fetchText(router, "/b"), [200, "B"]);
});

Deno.test(`${R} action middleware > handles middleware that returns a response (short-circuits)`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.get(
    "/",
    log(requestLog, "m1"),
    () => {
      requestLog.push("m2-short-circuit");
      return new Response("Blocked", { status: 403 });
    },
    log(requestLog, "m3"),
    () => {
      requestLog.push("action");
      return new Response("OK");
    },
  );
  assert.deepEqual(await fetchText(router, "/"), [403, "Blocked"]);
  assert.deepEqual(requestLog, ["m1", "m2-short-circuit"]);
});

Deno.test(`${R} action middleware > runs both controller and action middleware`, async () => {
  const routes = route({
    admin: { dashboard: "/admin/dashboard", users: "/admin/users" },
  });
  const requestLog: string[] = [];
  const router = createRouter();
  router.map(routes.admin, {
    middleware: [log(requestLog, "auth"), log(requestLog, "admin")],
    actions: {
      dashboard() {
        requestLog.push("dashboard-action");
        return new Response("Dashboard");
      },
      users: {
        middleware: [log(requestLog, "users-action-middleware")],
        handler() {
          requestLog.push("users-action");
          return new Response("Users");
        },
      },
    },
  });
  assert.deepEqual(
    await fetchText(router, "/admin/dashboard"),
    [200, "Dashboard"],
  );
  assert.deepEqual(requestLog, ["auth", "admin", "dashboard-action"]);
  requestLog.length = 0;
  assert.deepEqual(await fetchText(router, "/admin/users"), [200, "Users"]);
  assert.deepEqual(requestLog, [
    "auth",
    "admin",
    "users-action-middleware",
    "users-action",
  ]);
});

Deno.test(`${R} 404 handling > returns a 404 response when no route matches`, async () => {
  const router = createRouter();
  router.get("/home", () => new Response("Home"));
  // Remix: "Not Found: /nonexistent".
  assert.deepEqual(await fetchText(router, "/nonexistent"), [404, "Not Found"]);
});

Deno.test(`${R} 404 handling > supports a custom defaultHandler`, async () => {
  const router = createRouter({
    defaultHandler: ({ url }) =>
      new Response(`Custom 404: ${url.pathname}`, {
        status: 404,
        headers: { "X-Custom": "true" },
      }),
  });
  router.get("/home", () => new Response("Home"));
  const response = await router.fetch(new Request(`${ORIGIN}/missing`));
  assert.equal(response.status, 404);
  assert.equal(await response.text(), "Custom 404: /missing");
  assert.equal(response.headers.get("X-Custom"), "true");
});

Deno.test(`${R} 404 handling > calls defaultHandler only when no routes match`, async () => {
  let defaultCalls = 0;
  const router = createRouter({
    defaultHandler() {
      defaultCalls++;
      return new Response("Not Found", { status: 404 });
    },
  });
  router.get("/", () => new Response("Home"));
  router.get("/about", () => new Response("About"));
  await fetchText(router, "/");
  await fetchText(router, "/about");
  assert.equal(defaultCalls, 0);
  await fetchText(router, "/missing");
  assert.equal(defaultCalls, 1);
});

Deno.test(`${R} error handling > errors thrown in handlers, middleware and the default handler reach onError`, async () => {
  // Remix rejects `router.fetch` with the error; ours answers 500 and hands
  // the error to `onError` (its message never reaches the client).
  const cases: [string, (errors: unknown[]) => Router, string][] = [
    ["request handlers", (errors) => {
      const router = catching(errors);
      router.get("/", () => {
        throw new Error("Action error");
      });
      return router;
    }, "/"],
    ["async errors in route actions", (errors) => {
      const router = catching(errors);
      router.get("/", async () => {
        await Promise.resolve();
        throw new Error("Async action error");
      });
      return router;
    }, "/"],
    ["router middleware", (errors) => {
      const router = catching(errors, {
        middleware: [() => {
          throw new Error("Router middleware error");
        }],
      });
      router.get("/", () => new Response("OK"));
      return router;
    }, "/"],
    ["action middleware", (errors) => {
      const router = catching(errors);
      router.get("/", () => {
        throw new Error("Action middleware error");
      }, () => new Response("OK"));
      return router;
    }, "/"],
    ["the default handler", (errors) => {
      const router = catching(errors, {
        defaultHandler() {
          throw new Error("Default handler error");
        },
      });
      router.get("/home", () => new Response("Home"));
      return router;
    }, "/missing"],
  ];
  const messages = [
    "Action error",
    "Async action error",
    "Router middleware error",
    "Action middleware error",
    "Default handler error",
  ];
  for (const [i, [name, make, path]] of cases.entries()) {
    const errors: unknown[] = [];
    assert.deepEqual(
      await fetchText(make(errors), path),
      [500, "Internal Server Error"],
      name,
    );
    assert.equal(errors.length, 1, name);
    assert.equal((errors[0] as Error).message, messages[i], name);
  }
});

Deno.test(`${R} error handling > allows middleware to catch and handle errors from downstream`, async () => {
  const router = createRouter({
    middleware: [async (_context, next) => {
      try {
        return await next();
      } catch (error) {
        return new Response(`Caught: ${(error as Error).message}`, {
          status: 500,
        });
      }
    }],
  });
  router.get("/", () => {
    throw new Error("Action error");
  });
  assert.deepEqual(await fetchText(router, "/"), [500, "Caught: Action error"]);
});

Deno.test(`${R} trailing slash handling > single-path routes`, async () => {
  const router = createRouter();
  router.get("/about", () => new Response("About"));
  router.get("/contact/", () => new Response("Contact"));
  assert.deepEqual(await fetchText(router, "/about"), [200, "About"]);
  assert.equal((await fetchText(router, "/about/"))[0], 404);
  assert.deepEqual(await fetchText(router, "/contact/"), [200, "Contact"]);
  assert.equal((await fetchText(router, "/contact"))[0], 404);
});

Deno.test(`${R} trailing slash handling > routes made by route()`, async () => {
  const routes = route("api", { users: "/users", posts: "/posts/" });
  const router = createRouter();
  router.get(routes.users, () => new Response("Users"));
  router.get(routes.posts, () => new Response("Posts"));
  assert.deepEqual(await fetchText(router, "/api/users"), [200, "Users"]);
  assert.equal((await fetchText(router, "/api/users/"))[0], 404);
  assert.deepEqual(await fetchText(router, "/api/posts/"), [200, "Posts"]);
  assert.equal((await fetchText(router, "/api/posts"))[0], 404);
});

Deno.test(`${R} trailing slash handling > handles root path with and without trailing slash`, async () => {
  const router = createRouter();
  router.get("/", () => new Response("Home"));
  assert.deepEqual(await fetchText(router, "/"), [200, "Home"]);
  assert.deepEqual(await fetchText(router, ""), [200, "Home"]);
});

Deno.test(`${R} trailing slash handling > handles nested routes with trailing slash combinations`, async () => {
  const routes = route("admin", {
    dashboard: "/",
    users: { index: "/users", show: "/users/:id" },
  });
  const router = createRouter();
  router.get(routes.dashboard, () => new Response("Admin Dashboard"));
  router.get(routes.users.index, () => new Response("Users List"));
  router.get(
    routes.users.show,
    ({ params }) => new Response(`User ${params.id}`),
  );
  assert.deepEqual(await fetchText(router, "/admin"), [200, "Admin Dashboard"]);
  assert.equal((await fetchText(router, "/admin/"))[0], 404);
  assert.deepEqual(await fetchText(router, "/admin/users"), [
    200,
    "Users List",
  ]);
  assert.equal((await fetchText(router, "/admin/users/"))[0], 404);
  assert.deepEqual(
    await fetchText(router, "/admin/users/123"),
    [200, "User 123"],
  );
  assert.equal((await fetchText(router, "/admin/users/123/"))[0], 404);
});

Deno.test(`${R} router.mount() > registers routes below a static pathname prefix`, async () => {
  const router = createRouter();
  router.mount("/admin", (admin) => {
    admin.get("/", () => new Response("Admin"));
    admin.get("/users/:id", ({ params }) => new Response(`User ${params.id}`));
  });
  assert.deepEqual(await fetchText(router, "/admin"), [200, "Admin"]);
  assert.deepEqual(await fetchText(router, "/admin/users/123"), [
    200,
    "User 123",
  ]);
  assert.equal((await fetchText(router, "/users/123"))[0], 404);
});

Deno.test(`${R} router.mount() > registers routes below a route pattern prefix with params`, async () => {
  const router = createRouter();
  router.mount("/orgs/:orgId", (org) => {
    org.get("/", ({ params }) => new Response(`Org ${params.orgId}`));
    org.get(
      "/users/:userId",
      ({ params }) => new Response(`Org ${params.orgId} User ${params.userId}`),
    );
  });
  assert.deepEqual(await fetchText(router, "/orgs/acme"), [200, "Org acme"]);
  assert.deepEqual(
    await fetchText(router, "/orgs/acme/users/123"),
    [200, "Org acme User 123"],
  );
});

Deno.test(`${R} router.mount() > uses route-pattern semantics for mounted route patterns (pathname)`, async () => {
  const router = createRouter();
  router.mount("/files/*path", (files) => {
    files.get(
      "/raw/:id",
      ({ params }) => new Response(`Path ${params.path} File ${params.id}`),
    );
  });
  assert.deepEqual(
    await fetchText(router, "/files/a/b/raw/123"),
    [200, "Path a/b File 123"],
  );
});

Deno.test(`${R} router.mount() > uses the right-most param when mounted and child routes share a param name`, async () => {
  const router = createRouter();
  router.mount("/orgs/:id", (org) => {
    org.get("/users/:id", ({ params }) => new Response(`User ${params.id}`));
  });
  assert.deepEqual(
    await fetchText(router, "/orgs/acme/users/123"),
    [200, "User 123"],
  );
});

Deno.test(`${R} router.mount() > maps route maps and controllers below the mount prefix`, async () => {
  const adminRoutes = route({ index: "/", users: { show: "/users/:id" } });
  const router = createRouter();
  router.mount("/admin", (admin) => {
    admin.map(adminRoutes, { actions: { index: () => new Response("Admin") } });
    admin.map(adminRoutes.users, {
      actions: { show: ({ params }) => new Response(`User ${params.id}`) },
    });
  });
  assert.deepEqual(await fetchText(router, "/admin"), [200, "Admin"]);
  assert.deepEqual(
    await fetchText(router, "/admin/users/123"),
    [200, "User 123"],
  );
});

Deno.test(`${R} router.mount() > composes nested mount prefixes`, async () => {
  const router = createRouter();
  router.mount("/api", (api) => {
    api.mount("/v1", (v1) => v1.get("/status", () => new Response("ok")));
  });
  assert.deepEqual(await fetchText(router, "/api/v1/status"), [200, "ok"]);
});

Deno.test(`${R} router.mount() > preserves router, controller, and action middleware order`, async () => {
  const events: string[] = [];
  const around = (name: string): Middleware => async (_context, next) => {
    events.push(`${name} before`);
    const response = await next();
    events.push(`${name} after`);
    return response;
  };
  const routes = route({ update: { method: "POST", pattern: "/update" } });
  const router = createRouter({ middleware: [around("router")] });
  router.mount("/admin", (admin) => {
    admin.map(routes, {
      middleware: [around("controller")],
      actions: {
        update: {
          middleware: [around("action")],
          handler() {
            events.push("handler");
            return new Response("Updated");
          },
        },
      },
    });
  });
  assert.deepEqual(
    await fetchText(router, "/admin/update", { method: "POST" }),
    [200, "Updated"],
  );
  assert.deepEqual(events, [
    "router before",
    "controller before",
    "action before",
    "handler",
    "action after",
    "controller after",
    "router after",
  ]);
});

Deno.test(`${R} router.mount() > lets existing controller middleware short-circuit mounted handlers`, async () => {
  const router = createRouter();
  let handled = false;
  router.mount("/admin", (admin) => {
    admin.get(
      "/dashboard",
      () => new Response("Unauthorized", { status: 401 }),
      () => {
        handled = true;
        return new Response("Dashboard");
      },
    );
  });
  assert.deepEqual(
    await fetchText(router, "/admin/dashboard"),
    [401, "Unauthorized"],
  );
  assert.equal(handled, false);
});

Deno.test(`${R} router.mount() > shares matcher specificity between parent and mounted routes`, async () => {
  const router = createRouter();
  router.mount("/api", (api) => {
    api.get("/:id", ({ params }) => new Response(`Mounted ${params.id}`));
  });
  router.get("/api/health", () => new Response("Parent health"));
  assert.deepEqual(
    await fetchText(router, "/api/health"),
    [200, "Parent health"],
  );
  assert.deepEqual(
    await fetchText(router, "/api/users"),
    [200, "Mounted users"],
  );
});

Deno.test(`${R} router.mount() > uses the parent default handler for unknown mounted paths`, async () => {
  const router = createRouter({
    defaultHandler: ({ url }) =>
      new Response(`Missing ${url.pathname}`, { status: 404 }),
  });
  router.mount(
    "/admin",
    (admin) => admin.get("/", () => new Response("Admin")),
  );
  assert.deepEqual(
    await fetchText(router, "/admin/missing"),
    [404, "Missing /admin/missing"],
  );
});

const M = "remix middleware.test.ts › runMiddleware >";

Deno.test(`${M} runs middleware and returns a response`, async () => {
  const router = createRouter();
  router.get(
    "/",
    () => new Response("Hello, world!"),
    () => new Response("handler"),
  );
  assert.deepEqual(await fetchText(router, "/"), [200, "Hello, world!"]);
});

Deno.test(`${M} runs middleware in order from left to right`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.get(
    "/",
    log(requestLog, "one"),
    log(requestLog, "two"),
    () => new Response("Hello, world!"),
  );
  assert.deepEqual(await fetchText(router, "/"), [200, "Hello, world!"]);
  assert.deepEqual(requestLog, ["one", "two"]);
});

Deno.test(`${M} short-circuits the chain when a middleware returns a response`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.get(
    "/",
    () => {
      requestLog.push("one");
      return new Response("Hello, middleware!");
    },
    log(requestLog, "two"),
    () => new Response("Hello, world!"),
  );
  assert.deepEqual(await fetchText(router, "/"), [200, "Hello, middleware!"]);
  assert.deepEqual(requestLog, ["one"]);
});

Deno.test(`${M} uses the downstream response when middleware calls next()`, async () => {
  const requestLog: string[] = [];
  const router = createRouter();
  router.get("/", async (_context, next) => {
    requestLog.push("one");
    await next();
  }, async (_context, next) => {
    requestLog.push("two");
    await next();
  }, () => new Response("Hello, world!"));
  assert.deepEqual(await fetchText(router, "/"), [200, "Hello, world!"]);
  assert.deepEqual(requestLog, ["one", "two"]);
});

Deno.test(`${M} a middleware that neither returns a response nor calls next() continues the chain`, async () => {
  // Remix rejects ("Middleware must return a Response or call next()").
  const router = createRouter();
  router.get("/", () => {}, () => new Response("Hello, world!"));
  assert.deepEqual(await fetchText(router, "/"), [200, "Hello, world!"]);
});

Deno.test(`${M} rejects when a middleware calls next() multiple times`, async () => {
  const errors: unknown[] = [];
  const router = catching(errors);
  router.get("/", async (_context, next) => {
    await next();
    await next();
  }, () => new Response("Hello, world!"));
  assert.equal((await fetchText(router, "/"))[0], 500);
  assert.equal(errors.length, 1);
  assert.match((errors[0] as Error).message, /next\(\)/);
});

Deno.test(`${M} rejects when a handler or a middleware throws an error`, async () => {
  for (const where of ["handler", "middleware"]) {
    const errors: unknown[] = [];
    const router = catching(errors);
    router.get("/", (_context, next) => {
      if (where === "middleware") throw new Error("Middleware error!");
      return next();
    }, () => {
      throw new Error("Handler error!");
    });
    assert.equal((await fetchText(router, "/"))[0], 500);
    assert.equal(
      (errors[0] as Error).message,
      where === "handler" ? "Handler error!" : "Middleware error!",
    );
  }
});

const C = "remix request-context.test.ts › new RequestContext() >";

/** Runs `check` on the context of one GET request, and returns its result. */
async function withContext<T>(
  check: (
    context: Parameters<Parameters<Router["get"]>[1]>[0],
  ) => T,
  init?: RequestInit,
): Promise<T> {
  let result: T | undefined;
  const router = createRouter();
  router.any("/test", (context) => {
    result = check(context);
    return new Response("ok");
  });
  const response = await router.fetch(new Request(`${ORIGIN}/test`, init));
  assert.equal(response.status, 200);
  return result as T;
}

Deno.test(`${C} provides access to request headers`, async () => {
  assert.equal(
    await withContext(
      ({ headers }) => headers.get("Content-Type"),
      { headers: { "Content-Type": "application/json" } },
    ),
    "application/json",
  );
});

Deno.test(`${C} context.headers is the request's headers`, async () => {
  // Remix gives a lazy copy that can change apart from the request; ours
  // is `request.headers` itself.
  await withContext(({ headers, request }) => {
    assert.equal(headers, request.headers);
    headers.set("X-New", "new-value");
    assert.equal(request.headers.get("X-New"), "new-value");
  }, { headers: { "X-Original": "value" } });
});

Deno.test(`${C} stores and reads FormData using the FormData constructor as a context key`, async () => {
  await withContext(({ get, has, set }) => {
    assert.equal(has(FormData), false);
    // Remix's get(FormData) is undefined here; ours throws, naming the
    // middleware to add.
    assert.throws(() => get(FormData), TypeError);
    const formData = new FormData();
    formData.set("name", "Jane");
    formData.set("avatar", new File(["hello"], "hello.txt"));
    set(FormData, formData);
    assert.equal(has(FormData), true);
    const stored: FormData = get(FormData);
    assert.equal(stored.get("name"), "Jane");
    assert.ok(stored.get("avatar") instanceof File);
  }, { method: "POST" });
});

Deno.test(`${C} stores arbitrary request methods as strings`, async () => {
  assert.equal(
    await withContext(({ method }) => method, { method: "PROPFIND" }),
    "PROPFIND",
  );
});

Deno.test(`${C} context keys: set, defaults (null and undefined too), has, destructuring`, async () => {
  await withContext((context) => {
    const hello = createContextKey("hello");
    assert.equal(context.get(hello), "hello");
    context.set(hello, "world");
    assert.equal(context.get(hello), "world");
    assert.equal(context.get(createContextKey(null)), null);
    assert.equal(context.get(createContextKey(undefined)), undefined);
    const bare = createContextKey<string>();
    const missing: string | undefined = context.get(bare);
    assert.equal(missing, undefined);
    const withDefault = createContextKey("default");
    assert.equal(context.has(withDefault), false);
    context.set(withDefault, "value");
    assert.equal(context.has(withDefault), true);
    const { get, has, set } = context;
    const key = createContextKey<string>();
    assert.equal(has(key), false);
    assert.equal(get(key), undefined);
    set(key, "value");
    assert.equal(has(key), true);
    assert.equal(get(key), "value");
  });
});

Deno.test(`${C} supports class constructors as context keys`, async () => {
  class Value {
    constructor(readonly text: string) {}
  }
  await withContext(({ get, has, set }) => {
    const value = new Value("hello");
    set(Value, value);
    assert.equal(has(Value), true);
    assert.equal(get(Value), value);
  });
});
