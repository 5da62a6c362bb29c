import assert from "node:assert/strict";
import {
  createContextKey,
  createRouter,
  type Middleware,
} from "@fetchkit/toolkit/fetch-router";
import {
  form,
  resource,
  resources,
  Route,
  route,
} from "@fetchkit/toolkit/fetch-router/routes";

const get = (path: string, init?: RequestInit) =>
  new Request(`http://localhost${path}`, init);

Deno.test("router.fetch is bound, so a server can call it detached from the router", async () => {
  const router = createRouter();
  router.get("/", () => new Response("home"));
  const { fetch } = router;
  assert.equal(await (await fetch(get("/"))).text(), "home");
});

Deno.test("no route gives 404 Not Found; defaultHandler replaces it", async () => {
  const response = await createRouter().fetch(get("/missing"));
  assert.equal(response.status, 404);
  assert.equal(await response.text(), "Not Found");
  assert.match(response.headers.get("content-type")!, /^text\/plain/);
  const custom = createRouter({
    defaultHandler: ({ url }) =>
      new Response(`no ${url.pathname}`, { status: 404 }),
  });
  assert.equal(await (await custom.fetch(get("/x"))).text(), "no /x");
});

Deno.test("a path served for other methods gives 405 with Allow; OPTIONS gets 204", async () => {
  const router = createRouter();
  router.get("/posts/:id", () => new Response("show"));
  router.put("/posts/:id", () => new Response("update"));
  const response = await router.fetch(get("/posts/1", { method: "DELETE" }));
  assert.equal(response.status, 405);
  assert.equal(response.headers.get("allow"), "GET, HEAD, PUT");
  assert.equal(await response.text(), "Method Not Allowed");
  const options = await router.fetch(get("/posts/1", { method: "OPTIONS" }));
  assert.equal(options.status, 204);
  assert.equal(options.headers.get("allow"), "GET, HEAD, PUT");
});

Deno.test("HEAD is served by the GET route, without a body", async () => {
  const router = createRouter();
  router.get(
    "/page",
    () => new Response("hello", { headers: { "X-Page": "1" } }),
  );
  const response = await router.fetch(get("/page", { method: "HEAD" }));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("x-page"), "1");
  assert.equal(response.body, null);
  router.head(
    "/own",
    () => new Response(null, { headers: { "X-Own": "yes" } }),
  );
  router.get("/own", () => new Response("get"));
  assert.equal(
    (await router.fetch(get("/own", { method: "HEAD" }))).headers.get("x-own"),
    "yes",
  );
});

Deno.test("a thrown error gives 500 without its message; onError overrides", async () => {
  const router = createRouter();
  router.get("/boom", () => {
    throw new Error("database password is hunter2");
  });
  const logged: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => logged.push(...args);
  try {
    const response = await router.fetch(get("/boom"));
    assert.equal(response.status, 500);
    assert.equal(await response.text(), "Internal Server Error");
  } finally {
    console.error = original;
  }
  assert.equal((logged[0] as Error).message, "database password is hunter2");

  const custom = createRouter({
    onError: (error) =>
      new Response(`sorry: ${(error as Error).name}`, { status: 503 }),
  });
  custom.get("/boom", () => Promise.reject(new RangeError("x")));
  const response = await custom.fetch(get("/boom"));
  assert.equal(response.status, 503);
  assert.equal(await response.text(), "sorry: RangeError");
});

Deno.test("an onError that throws still gives a plain 500", async () => {
  const router = createRouter({
    onError: () => {
      throw new Error("handler broke");
    },
  });
  router.get("/", () => {
    throw new Error("first");
  });
  const original = console.error;
  console.error = () => {};
  try {
    const response = await router.fetch(get("/"));
    assert.equal(response.status, 500);
    assert.equal(await response.text(), "Internal Server Error");
  } finally {
    console.error = original;
  }
});

Deno.test("middleware order: router wraps controller wraps route wraps handler", async () => {
  const trace: string[] = [];
  const mark = (name: string): Middleware => async (_context, next) => {
    trace.push(`${name} in`);
    const response = await next();
    trace.push(`${name} out`);
    return response;
  };
  const router = createRouter({
    middleware: [mark("router1"), mark("router2")],
  });
  const posts = resources("posts", { only: ["index"] });
  router.map(posts, {
    middleware: [mark("controller")],
    actions: {
      index: {
        middleware: [mark("action")],
        handler: () => {
          trace.push("handler");
          return new Response("ok");
        },
      },
    },
  });
  router.get("/direct", mark("route1"), mark("route2"), () => {
    trace.push("direct");
    return new Response("ok");
  });
  await router.fetch(get("/posts"));
  assert.deepEqual(trace, [
    "router1 in",
    "router2 in",
    "controller in",
    "action in",
    "handler",
    "action out",
    "controller out",
    "router2 out",
    "router1 out",
  ]);
  trace.length = 0;
  await router.fetch(get("/direct"));
  assert.deepEqual(trace, [
    "router1 in",
    "router2 in",
    "route1 in",
    "route2 in",
    "direct",
    "route2 out",
    "route1 out",
    "router2 out",
    "router1 out",
  ]);
});

Deno.test("router middleware runs for 404s and may answer on its own", async () => {
  const seen: string[] = [];
  const router = createRouter({
    middleware: [(context, next) => {
      seen.push(context.url.pathname);
      if (context.url.pathname === "/blocked") {
        return new Response("no", { status: 403 });
      }
      return next();
    }],
  });
  assert.equal((await router.fetch(get("/nothing"))).status, 404);
  assert.equal((await router.fetch(get("/blocked"))).status, 403);
  assert.deepEqual(seen, ["/nothing", "/blocked"]);
});

Deno.test("middleware that returns nothing continues the chain", async () => {
  const Greeting = createContextKey("");
  const router = createRouter({
    middleware: [
      (context) => {
        context.set(Greeting, "hi");
      },
      async (_context, next) => {
        await next();
      },
    ],
  });
  router.get("/", (context) => new Response(context.get(Greeting)));
  const response = await router.fetch(get("/"));
  assert.equal(await response.text(), "hi");
});

Deno.test("next() twice throws, and the request gets a 500", async () => {
  let message = "";
  const router = createRouter({
    onError: (error) => {
      message = (error as Error).message;
      return new Response("error", { status: 500 });
    },
  });
  router.get("/", async (_context, next) => {
    await next();
    return next();
  }, () => new Response("ok"));
  assert.equal((await router.fetch(get("/"))).status, 500);
  assert.match(message, /next\(\) called twice/);
});

Deno.test("middleware returning something that is not a Response is an error", async () => {
  let message = "";
  const router = createRouter({
    onError: (error) => {
      message = (error as Error).message;
      return new Response("error", { status: 500 });
    },
  });
  // @ts-expect-error a string is not a Response
  router.get("/", () => "oops", () => new Response("ok"));
  assert.equal((await router.fetch(get("/"))).status, 500);
  assert.match(message, /returned string/);
});

Deno.test("router middleware may change context.method before routing", async () => {
  const router = createRouter({
    middleware: [(context) => {
      const override = context.headers.get("x-method");
      if (override) context.method = override;
    }],
  });
  router.delete(
    "/posts/:id",
    ({ params }) => new Response(`deleted ${params.id}`),
  );
  const response = await router.fetch(
    get("/posts/4", { method: "POST", headers: { "x-method": "DELETE" } }),
  );
  assert.equal(await response.text(), "deleted 4");
});

Deno.test("context: get, set, has with symbols, classes and typed keys", async () => {
  const Plain = Symbol("plain");
  const WithDefault = createContextKey(10);
  const NoDefault = createContextKey<string>();
  const router = createRouter();
  router.post("/items/:id", (context) => {
    const before = [
      context.get(Plain),
      context.get(WithDefault),
      context.get(NoDefault),
    ];
    const flags = [context.has(Plain), context.has(WithDefault)];
    context.set(Plain, "p");
    context.set(WithDefault, 11);
    context.set(FormData, new FormData());
    return Response.json({
      before,
      flags,
      after: [
        context.get(Plain),
        context.get(WithDefault),
        context.get(FormData) instanceof FormData,
      ],
      has: context.has(Plain),
      method: context.method,
      header: context.headers.get("x-test"),
      url: context.url.search,
      sameRequest: context.request.url === "http://localhost/items/5?q=1",
      params: context.params,
    });
  });
  const response = await router.fetch(
    get("/items/5?q=1", { method: "POST", headers: { "x-test": "t" } }),
  );
  assert.deepEqual(await response.json(), {
    before: [null, 10, null],
    flags: [false, false],
    after: ["p", 11, true],
    has: true,
    method: "POST",
    header: "t",
    url: "?q=1",
    sameRequest: true,
    params: { id: "5" },
  });
});

Deno.test("context: get, set and has work destructured", async () => {
  const Count = createContextKey(0);
  const router = createRouter({
    middleware: [({ set }) => set(Count, 41)],
  });
  router.get("/", (context, next) => {
    const { get, set } = context;
    set(Count, get(Count) + 1);
    return next();
  }, ({ get, has }) =>
    Response.json({
      count: get(Count),
      has: has(Count),
      same: get === get,
    }));
  const response = await router.fetch(get("/"));
  assert.deepEqual(await response.json(), {
    count: 42,
    has: true,
    same: true,
  });
});

Deno.test("context: a class key is its instance type and throws when missing", async () => {
  class Tenant {
    constructor(readonly id: string) {}
  }
  const router = createRouter();
  router.post(
    "/form",
    ({ get }) => new Response(String(get(FormData).get("email"))),
  );
  router.get("/tenant", ({ get }) => new Response(get(Tenant).id));
  router.get("/set", ({ get, set, has }) => {
    const before = has(Tenant);
    set(Tenant, new Tenant("t1"));
    return Response.json({ before, id: get(Tenant).id, after: has(Tenant) });
  });
  const errors: unknown[] = [];
  const failing = createRouter({
    onError: (error) => {
      errors.push(error);
      return new Response("failed", { status: 500 });
    },
  });
  failing.post(
    "/form",
    ({ get }) => new Response(String(get(FormData).get("email"))),
  );
  failing.get("/tenant", ({ get }) => new Response(get(Tenant).id));
  assert.equal(
    (await failing.fetch(get("/form", { method: "POST" }))).status,
    500,
  );
  assert.equal((await failing.fetch(get("/tenant"))).status, 500);
  assert.ok(errors[0] instanceof TypeError);
  assert.match(
    (errors[0] as Error).message,
    /^No FormData in the request context; add formData\(\) middleware/,
  );
  assert.match(
    (errors[1] as Error).message,
    /^No Tenant in the request context; add the middleware that sets it \(context.set\(Tenant, value\)\)/,
  );
  assert.deepEqual(await (await router.fetch(get("/set"))).json(), {
    before: false,
    id: "t1",
    after: true,
  });
});

Deno.test("map() serves a route map through a controller, nested groups included", async () => {
  const routes = route({
    home: "/",
    contact: form("contact"),
    brands: {
      ...resources("brands", { only: ["index", "show"] }),
      products: resources("brands/:brandId/products"),
    },
    profile: resource("profile", {
      only: ["show", "edit"],
      names: { edit: "change" },
    }),
  });
  const router = createRouter();
  router.map(routes, {
    actions: {
      home: () => new Response("home"),
      contact: {
        actions: {
          index: () => new Response("form"),
          action: () => new Response("sent"),
        },
      },
      brands: {
        actions: {
          index: () => new Response("brands"),
          show: ({ params }) => new Response(`brand ${params.id}`),
          products: {
            actions: {
              index: ({ params }) =>
                new Response(`products of ${params.brandId}`),
              new: () => new Response("new"),
              show: ({ params }) =>
                new Response(`product ${params.id} of ${params.brandId}`),
              create: () => new Response("created", { status: 201 }),
              edit: ({ params }) => new Response(`edit ${params.id}`),
              update: ({ params }) => new Response(`update ${params.id}`),
              destroy: () => new Response(null, { status: 204 }),
            },
          },
        },
      },
      profile: {
        actions: {
          show: () => new Response("me"),
          change: () => new Response("edit me"),
        },
      },
    },
  });
  const text = async (path: string, method = "GET") => {
    const response = await router.fetch(get(path, { method }));
    return `${response.status} ${await response.text()}`;
  };
  assert.equal(await text("/"), "200 home");
  assert.equal(await text("/contact"), "200 form");
  assert.equal(await text("/contact", "POST"), "200 sent");
  assert.equal(await text("/brands/3"), "200 brand 3");
  assert.equal(await text("/brands/3/products"), "200 products of 3");
  assert.equal(await text("/brands/3/products/new"), "200 new");
  assert.equal(await text("/brands/3/products/9"), "200 product 9 of 3");
  assert.equal(await text("/brands/3/products", "POST"), "201 created");
  assert.equal(await text("/brands/3/products/9/edit"), "200 edit 9");
  assert.equal(await text("/brands/3/products/9", "PUT"), "200 update 9");
  assert.equal(await text("/brands/3/products/9", "DELETE"), "204 ");
  assert.equal(await text("/profile"), "200 me");
  assert.equal(await text("/profile/edit"), "200 edit me");
});

Deno.test("map() lets a nested group be mapped by its own call", async () => {
  const routes = route({
    brands: {
      ...resources("brands", { only: ["index"] }),
      products: resources("brands/:brandId/products", { only: ["index"] }),
    },
  });
  const router = createRouter();
  router.map(routes.brands, {
    actions: { index: () => new Response("brands") },
  });
  router.map(routes.brands.products, {
    actions: { index: ({ params }) => new Response(`p ${params.brandId}`) },
  });
  assert.equal(
    await (await router.fetch(get("/brands/2/products"))).text(),
    "p 2",
  );
});

Deno.test("map() accepts one route and a handler", async () => {
  const router = createRouter();
  router.map(
    new Route("PATCH", "/notes/:id"),
    ({ params }) => new Response(`patched ${params.id}`),
  );
  assert.equal(
    await (await router.fetch(get("/notes/1", { method: "PATCH" }))).text(),
    "patched 1",
  );
});

Deno.test("map() refuses an unknown action name or a route without an action, naming it", () => {
  const router = createRouter();
  // Untyped on purpose: these checks guard JavaScript callers and casts.
  const map = router.map as (routes: unknown, controller: unknown) => void;
  const ok = () => new Response();
  const posts = resources("posts", { only: ["index", "show"] });
  assert.throws(
    () => map(posts, { actions: { index: ok, show: ok, list: ok } }),
    {
      name: "TypeError",
      message:
        'Unknown route "list" in actions; the routes here are: index, show',
    },
  );
  assert.throws(
    () => map(posts, { actions: { index: ok } }),
    {
      name: "TypeError",
      message: 'No action for route "show" (GET /posts/:id)',
    },
  );
  const nested = route({
    brands: {
      ...resources("brands", { only: ["index"] }),
      products: resources("p", { only: ["show"] }),
    },
  });
  assert.throws(
    () =>
      map(nested, {
        actions: {
          brands: { actions: { index: ok, products: { actions: {} } } },
        },
      }),
    {
      name: "TypeError",
      message: 'No action for route "brands.products.show" (GET /p/:id)',
    },
  );
  assert.throws(
    () =>
      map(resources("x", { only: ["index"] }), { actions: { index: "nope" } }),
    /must be a handler/,
  );
  assert.throws(() => map(posts, { index: ok }), /needs an "actions" object/);
});

Deno.test("map() types refuse unknown and missing actions", () => {
  const router = createRouter();
  const posts = resources("posts", { only: ["index", "show"] });
  const ok = () => new Response();
  const check = (fn: () => void) => assert.throws(fn, TypeError);
  // deno-fmt-ignore
  // @ts-expect-error "list" is not a route of posts
  check(() => router.map(posts, { actions: { index: ok, show: ok, list: ok } }));
  // deno-fmt-ignore
  // @ts-expect-error show has no action
  check(() => router.map(posts, { actions: { index: ok } }));
});

Deno.test("router.get() takes a Route and needs a handler last", async () => {
  const router = createRouter();
  const show = new Route("GET", "/things/:id");
  router.get(show, ({ params }) => new Response(params.id));
  assert.equal(await (await router.fetch(get("/things/x"))).text(), "x");
  const untypedGet = router.get as unknown as (pattern: string) => void;
  assert.throws(
    () => untypedGet("/nothing"),
    /last argument must be a handler/,
  );
});

Deno.test("typed params are inferred from the pattern", () => {
  const router = createRouter();
  router.get("/a/:id(/:page)/*rest", ({ params }) => {
    const id: string = params.id;
    const page: string | undefined = params.page;
    const rest: string = params.rest;
    // @ts-expect-error not a parameter of this pattern
    params.other;
    return new Response(`${id}${page}${rest}`);
  });
});

Deno.test("a handler that returns no Response goes through onError, for GET and HEAD", async () => {
  const messages: string[] = [];
  const router = createRouter({
    onError: (error) => {
      messages.push((error as Error).message);
      return new Response("error", { status: 500 });
    },
  });
  const untyped = router.get as unknown as (
    pattern: string,
    handler: () => unknown,
  ) => void;
  untyped("/u", () => undefined);
  untyped("/m", () => ({ not: "a response" }));
  assert.equal((await router.fetch(get("/u"))).status, 500);
  assert.equal((await router.fetch(get("/u", { method: "HEAD" }))).status, 500);
  const withMiddleware = createRouter({
    onError: () => new Response("e", { status: 500 }),
  });
  (withMiddleware.get as unknown as (
    p: string,
    m: Middleware,
    h: () => unknown,
  ) => void)(
    "/x",
    (_context, next) => next(),
    () => null,
  );
  assert.equal((await withMiddleware.fetch(get("/x"))).status, 500);
  assert.equal((await router.fetch(get("/m"))).status, 500);
  assert.deepEqual(messages, [
    "A handler returned undefined, not a Response",
    "A handler returned undefined, not a Response",
    "A handler returned object, not a Response",
  ]);
});

Deno.test("HEAD reports the Content-Length the GET body would have, without a body", async () => {
  const router = createRouter();
  router.get("/text", () => new Response("hello world"));
  router.get("/json", () => Response.json({ café: "\u00e9" }));
  router.get(
    "/set",
    () => new Response("abc", { headers: { "content-length": "3" } }),
  );
  const live = new ReadableStream<Uint8Array>({ start() {} }); // never sends
  router.get(
    "/live",
    () =>
      new Response(live, { headers: { "content-type": "text/event-stream" } }),
  );
  const head = (path: string) => router.fetch(get(path, { method: "HEAD" }));
  const text = await head("/text");
  assert.equal(text.body, null);
  assert.equal(text.headers.get("content-length"), "11");
  assert.equal(
    (await head("/json")).headers.get("content-length"),
    String(new TextEncoder().encode('{"caf\u00e9":"\u00e9"}').length),
  );
  assert.equal((await head("/set")).headers.get("content-length"), "3");
  const stream = await head("/live");
  assert.equal(stream.body, null);
  assert.equal(
    stream.headers.get("content-length"),
    null,
    "a live stream is not waited for",
  );
  assert.equal(stream.headers.get("content-type"), "text/event-stream");
});

Deno.test("map() adds nothing when it refuses a controller", async () => {
  const router = createRouter();
  const map = router.map as (routes: unknown, controller: unknown) => void;
  const posts = resources("posts", { only: ["index", "show"] });
  assert.throws(
    () => map(posts, { actions: { index: () => new Response("index") } }),
    TypeError,
  );
  assert.equal(
    (await router.fetch(get("/posts"))).status,
    404,
    "index was not mapped",
  );
});

Deno.test("a handler may answer with any thenable; a sync throw in a chain reaches onError", async () => {
  const errors: unknown[] = [];
  const router = createRouter({
    onError: (error) => {
      errors.push(error);
      return new Response("handled", { status: 500 });
    },
  });
  router.get("/thenable", () =>
    ({
      then(resolve: (response: Response) => void) {
        resolve(new Response("from thenable"));
      },
    }) as unknown as Promise<Response>);
  router.get("/throws", (_context, next) => next(), () => {
    throw new RangeError("sync");
  });
  assert.equal(
    await (await router.fetch(get("/thenable"))).text(),
    "from thenable",
  );
  const response = await router.fetch(get("/throws"));
  assert.equal(await response.text(), "handled");
  assert.ok(errors[0] instanceof RangeError);
});

Deno.test("errors below a middleware reach its catch; only the outermost chain answers 500", async () => {
  const seen: string[] = [];
  const router = createRouter({
    middleware: [async (_context, next) => {
      try {
        return await next();
      } catch (error) {
        seen.push(`router caught ${(error as Error).message}`);
        return new Response("recovered by router middleware", { status: 502 });
      }
    }],
    onError: (error) => {
      seen.push(`onError ${(error as Error).message}`);
      return new Response("onError", { status: 500 });
    },
  });
  const pass = async (_context: unknown, next: () => Promise<Response>) => {
    await next();
  };
  router.get("/deep", pass, pass, () => {
    throw new Error("deep");
  });
  router.get("/async-deep", pass, async () => {
    await Promise.resolve();
    throw new Error("async deep");
  });
  for (const path of ["/deep", "/async-deep"]) {
    const response = await router.fetch(get(path));
    assert.equal(response.status, 502);
    assert.equal(await response.text(), "recovered by router middleware");
  }
  assert.deepEqual(seen, ["router caught deep", "router caught async deep"]);

  // Without router middleware the route's own chain is the outermost one.
  const bare = createRouter({
    onError: (error) =>
      new Response(`onError: ${(error as Error).message}`, { status: 500 }),
  });
  bare.get("/deep", pass, pass, () => {
    throw new Error("deep");
  });
  bare.get(
    "/caught",
    async (_context, next) => {
      try {
        return await next();
      } catch {
        return new Response("route middleware caught it", { status: 503 });
      }
    },
    pass,
    () => {
      throw new Error("inner");
    },
  );
  const deep = await bare.fetch(get("/deep"));
  assert.equal(deep.status, 500);
  assert.equal(await deep.text(), "onError: deep");
  const caught = await bare.fetch(get("/caught"));
  assert.equal(caught.status, 503);
  assert.equal(await caught.text(), "route middleware caught it");
});

Deno.test("a middleware that does not await next() still answers with what next() gave", async () => {
  const router = createRouter();
  let release!: () => void;
  const gate = new Promise<void>((resolve) => release = resolve);
  router.get(
    "/late",
    async (_context, next) => {
      // next() not awaited: the chain below is still running when this
      // middleware's promise settles.
      next();
      await Promise.resolve();
    },
    async () => {
      await gate;
      return new Response("late answer");
    },
  );
  const pending = router.fetch(get("/late"));
  setTimeout(release, 5);
  assert.equal(await (await pending).text(), "late answer");
});

Deno.test("next() of every middleware settles to the answer below it, however deep, sync or async", async () => {
  const seen: string[] = [];
  const watch = (name: string): Middleware => (_context, next) => {
    const below = next();
    assert.ok(below instanceof Promise, name);
    below.then((response) => seen.push(`${name} ${response.status}`));
    return below;
  };
  const replaces: Middleware = (_context, next) => {
    next();
    return new Response("replaced", { status: 202 });
  };
  const awaits: Middleware = async (_context, next) => {
    const response = await next();
    return new Response(`awaited ${await response.text()}`, { status: 201 });
  };
  const router = createRouter({ middleware: [watch("router")] });
  router.get("/plain", watch("a"), watch("b"), () => new Response("x"));
  router.get(
    "/replaced",
    watch("a"),
    replaces,
    watch("b"),
    () => new Response("x"),
  );
  router.get(
    "/awaited",
    watch("a"),
    awaits,
    watch("b"),
    () => new Response("x"),
  );
  router.get("/own", watch("a"), () => {}, watch("b"), async () => {
    await Promise.resolve();
    return new Response("late", { status: 203 });
  });
  for (
    const [path, text, order] of [
      ["/plain", "x", ["b 200", "a 200", "router 200"]],
      ["/replaced", "replaced", ["b 200", "a 202", "router 202"]],
      ["/awaited", "awaited x", ["b 200", "a 201", "router 201"]],
      ["/own", "late", ["b 203", "a 203", "router 203"]],
    ] as const
  ) {
    seen.length = 0;
    const response = await router.fetch(get(path));
    assert.equal(await response.text(), text, path);
    await new Promise((resolve) => setTimeout(resolve, 0));
    assert.deepEqual(seen.toSorted(), [...order].sort(), path);
  }
});

Deno.test("a handler may serve a nested router's fetch, with middleware on both", async () => {
  const stamp = (header: string): Middleware => async (_context, next) => {
    const response = await next();
    response.headers.set(header, "1");
    return response;
  };
  const inner = createRouter({
    middleware: [stamp("X-Inner")],
    onError: () => new Response("inner onError", { status: 500 }),
  });
  inner.get("/boom", () => {
    throw new Error("inner boom");
  });
  inner.get("/ok", () => new Response("inner ok"));
  const outer = createRouter({
    middleware: [stamp("X-Outer")],
    onError: () => new Response("outer onError", { status: 500 }),
  });
  outer.get("/ok", ({ request }) => inner.fetch(request));
  outer.get("/boom", ({ request }) => inner.fetch(request));
  outer.get("/own", () => {
    throw new Error("outer boom");
  });
  const ok = await outer.fetch(get("/ok"));
  assert.equal(await ok.text(), "inner ok");
  assert.equal(ok.headers.get("X-Inner"), "1");
  assert.equal(ok.headers.get("X-Outer"), "1");
  const boom = await outer.fetch(get("/boom"));
  assert.equal(await boom.text(), "inner onError");
  assert.equal(boom.headers.get("X-Outer"), "1");
  const own = await outer.fetch(get("/own"));
  assert.equal(await own.text(), "outer onError");
});

Deno.test("router.fetch answers a synchronous chain with the Response itself, else a promise", async () => {
  const router = createRouter();
  router.get("/sync", () => new Response("sync"));
  router.get("/async", async () => {
    await Promise.resolve();
    return new Response("async");
  });
  router.get(
    "/sync-mw",
    (_context, next) => next(),
    () => {},
    () => new Response("mw"),
  );
  router.get("/async-mw", async (_context, next) => {
    await next();
  }, () => new Response("async mw"));
  const sync = router.fetch(get("/sync"));
  assert.ok(sync instanceof Response, "a synchronous handler: no promise");
  assert.equal(await sync.text(), "sync");
  assert.ok(router.fetch(get("/nothing")) instanceof Response, "the 404 too");
  const later = router.fetch(get("/async"));
  assert.ok(later instanceof Promise);
  assert.equal(await (await later).text(), "async");
  // Middleware that returns next()'s promise, or nothing, keeps a
  // synchronous chain synchronous; an async middleware makes it a promise.
  const chained = router.fetch(get("/sync-mw"));
  assert.ok(chained instanceof Response);
  assert.equal(await chained.text(), "mw");
  const awaited = router.fetch(get("/async-mw"));
  assert.ok(awaited instanceof Promise);
  assert.equal(await (await awaited).text(), "async mw");
  // HEAD answers are made asynchronously (the length may need reading).
  const head = router.fetch(get("/sync", { method: "HEAD" }));
  assert.ok(head instanceof Promise);
  assert.equal((await head).body, null);
});
