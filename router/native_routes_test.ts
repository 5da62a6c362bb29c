// The router behind serve() answers alike whether Bun's native router
// matched the request (serve() hands it the router's routes on Bun) or the
// router's own matcher did: the same router is served twice, once with
// its Bun routes hook and once behind a plain function without it, and
// raw HTTP requests (exact bytes, dot segments and bad escapes included)
// must get the same status, headers and body from both. On Deno and Node
// neither server has native routes; the test runs there too.
import assert from "node:assert/strict";
import { connect } from "node:net";
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { Route } from "@fetchkit/toolkit/fetch-router/routes";
import { serve, type Server } from "@fetchkit/toolkit/serve";
import { createEventStreamResponse } from "@fetchkit/toolkit/response/event-stream";
import { Rng } from "../_tools/fuzz.ts";
import {
  type Absent,
  nativeRoutes,
  type Registered,
} from "./_native_routes.ts";

const BUN_ROUTES = Symbol.for("fetchkit.serve.bunRoutes");
const onBun = typeof (globalThis as { Bun?: unknown }).Bun !== "undefined";

function answer(
  context: {
    method: string;
    params: Record<string, string | undefined>;
    url: URL;
    remoteAddr?: { hostname: string };
    routePattern?: string;
  },
  name: string,
): Response {
  return Response.json({
    name,
    method: context.method,
    params: { ...context.params },
    path: context.url.pathname,
    client: context.remoteAddr?.hostname ?? null,
    pattern: context.routePattern ?? null,
  }, { headers: { "X-Route": name } });
}

function build(withRouterMiddleware: boolean): Router {
  const router = createRouter({
    middleware: withRouterMiddleware
      ? [(context, next) => {
        // As methodOverride() does: a different method after routing began.
        const override = context.headers.get("x-method");
        if (override !== null) context.method = override;
        return next();
      }]
      : [],
  });
  router.get("/", (c) => answer(c, "home"));
  router.get("/staged/:id", (context, next) => {
    context.responseHeaders.set("X-Staged", context.params.id ?? "");
    return next();
  }, (c) => answer(c, "staged"));
  router.get("/about", (c) => answer(c, "about GET"));
  router.post("/about", (c) => answer(c, "about POST"));
  router.get("/users/new", (c) => answer(c, "new user"));
  router.get("/users/:id", (c) => answer(c, "user"));
  router.put("/users/:id", (c) => answer(c, "user PUT"));
  router.get("/users/:userId/posts/:postId", (c) => answer(c, "post"));
  router.get("/files/*", (c) => answer(c, "files"));
  router.get("/a/:y/z", (c) => answer(c, "a/:y/z"));
  router.get("/:x/b/z", (c) => answer(c, ":x/b/z"));
  router.any("/any", (c) => answer(c, "any"));
  router.get("/h", (c) => answer(c, "h GET"));
  router.head("/h", () => new Response(null, { headers: { "X-Head": "1" } }));
  router.get("/throws/:id", () => {
    throw new Error("boom");
  });
  router.get(
    "/mw/:id",
    async (_context, next) => {
      const response = await next();
      response.headers.set("X-After", "1");
      return response;
    },
    (c) => answer(c, "mw"),
  );
  router.mount("/orgs/:orgId", (org) => {
    org.use((context) => {
      if (context.headers.get("x-deny") !== null) {
        return new Response("denied", { status: 403 });
      }
    });
    org.get("/teams/:teamId", (c) => answer(c, "team"));
  });
  return router;
}

interface Raw {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** One request as exact bytes on a new connection; the parsed answer. */
function raw(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      const lines = [`${method} ${path} HTTP/1.1`, "Host: localhost"];
      for (const [name, value] of Object.entries(headers)) {
        lines.push(`${name}: ${value}`);
      }
      socket.write(lines.join("\r\n") + "\r\nConnection: close\r\n\r\n");
    });
    const chunks: Uint8Array[] = [];
    socket.on("data", (chunk: Uint8Array) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = new TextDecoder().decode(
        new Uint8Array(chunks.flatMap((chunk) => [...chunk])),
      );
      const split = text.indexOf("\r\n\r\n");
      const [statusLine, ...headerLines] = text.slice(0, split).split("\r\n");
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(":");
        parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1)
          .trim();
      }
      resolve({
        status: Number(statusLine!.split(" ")[1]),
        headers: parsed,
        body: text.slice(split + 4),
      });
    });
  });
}

/** What must agree: the status, the body, and the headers that matter. */
function comparable(answer: Raw): unknown {
  const keep = [
    "allow",
    "content-type",
    "x-route",
    "x-head",
    "x-after",
    "x-staged",
  ];
  const headers: Record<string, string> = {};
  for (const name of keep) {
    if (answer.headers[name] !== undefined) {
      headers[name] = answer.headers[name]!;
    }
  }
  // The same media type either way: the router's bare 404 on Bun has its
  // type written by Bun, which spells it without the space after ";"
  // (router/_answers.ts, `bareNotFound`).
  if (headers["content-type"] !== undefined) {
    headers["content-type"] = headers["content-type"].replaceAll("; ", ";");
  }
  // Chunked or not is the server's choice; the body is what counts.
  const body = answer.headers["transfer-encoding"] === "chunked"
    ? dechunk(answer.body)
    : answer.body;
  return { status: answer.status, headers, body };
}

function dechunk(body: string): string {
  let out = "";
  let rest = body;
  while (rest.length > 0) {
    const end = rest.indexOf("\r\n");
    const size = parseInt(rest.slice(0, end), 16);
    if (!(size > 0)) break;
    out += rest.slice(end + 2, end + 2 + size);
    rest = rest.slice(end + 2 + size + 2);
  }
  return out;
}

const REQUESTS: [string, string, Record<string, string>?][] = [
  ["GET", "/"],
  ["GET", "/about"],
  ["POST", "/about"],
  ["PUT", "/about"],
  ["OPTIONS", "/about"],
  ["HEAD", "/about"],
  ["GET", "/about/"],
  ["GET", "//about"],
  ["GET", "/%61bout"],
  ["GET", "/ABOUT"],
  ["GET", "/about?x=1"],
  ["GET", "/users/1"],
  ["PUT", "/users/1"],
  ["DELETE", "/users/1"],
  ["HEAD", "/users/1"],
  ["GET", "/users/new"],
  ["PUT", "/users/new"],
  ["GET", "/users/a%2Fb"],
  ["GET", "/users/a%20b"],
  ["GET", "/users/%E2%82%AC"],
  ["GET", "/users/%EF%BF%BD"],
  ["GET", "/users/%ZZ"],
  ["GET", "/users/%"],
  ["GET", "/users/%C3"],
  ["GET", "/users/.."],
  ["GET", "/users/%2e%2e"],
  ["GET", "/users/."],
  ["GET", "/users/a\\b"],
  ["GET", "/users/1;x"],
  // A fragment in the request target (no browser sends one; a raw client
  // may): the URL drops it, Bun's router kept it in the parameter.
  // (Paths apart from those checked to be native below: these fall back.)
  ["GET", "/users/2#f"],
  ["GET", "/users/2#f/posts/3"],
  ["GET", "/h#f"],
  ["GET", "/users/%232"],
  ["GET", "/users/"],
  ["GET", "/users/1/"],
  ["GET", "/users/1/posts/2"],
  ["GET", "/users/1/posts/"],
  ["GET", "/files/x/y"],
  ["GET", "/a/b/z"],
  ["GET", "/a/c/z"],
  ["GET", "/c/b/z"],
  ["GET", "/any"],
  ["PATCH", "/any"],
  ["HEAD", "/any"],
  ["GET", "/h"],
  ["HEAD", "/h"],
  ["GET", "/throws/1"],
  ["GET", "/mw/7"],
  ["GET", "/staged/7"],
  ["HEAD", "/staged/7"],
  ["GET", "/orgs/1/teams/2"],
  ["GET", "/orgs/1/teams/2", { "X-Deny": "1" }],
  ["GET", "/users/1", { "X-Method": "PUT" }],
  ["GET", "/users/1", { "X-Method": "DELETE" }],
  ["POST", "/about", { "X-Method": "GET" }],
  ["GET", "/no/such/page"],
];

const local = { hostname: "127.0.0.1", port: 0, handleSignals: false };

async function compareAll(router: Router, label: string): Promise<void> {
  const wrapperCalls: string[] = [];
  // The hook is what serve() looks for; the plain function has none.
  const native = Object.assign(
    (request: Request, info: unknown) => {
      wrapperCalls.push(new URL(request.url).pathname);
      methodCalls.push(`${request.method} ${new URL(request.url).pathname}`);
      return router.fetch(request, info as { remoteAddr?: never });
    },
    {
      [BUN_ROUTES]: (router.fetch as unknown as Record<symbol, () => unknown>)[
        BUN_ROUTES
      ],
    },
  );
  const methodCalls: string[] = [];
  const plain = (request: Request, info: unknown) =>
    router.fetch(request, info as { remoteAddr?: never });
  const servers: Server[] = [serve(native, local), serve(plain, local)];
  const [a, b] = servers.map((server) => server.addr.port);
  // The route that throws is logged by the router; not needed here.
  const error = console.error;
  console.error = () => {};
  try {
    for (const [method, path, headers] of REQUESTS) {
      const [ours, reference] = await Promise.all([
        raw(a!, method, path, headers),
        raw(b!, method, path, headers),
      ]);
      assert.deepEqual(
        comparable(ours),
        comparable(reference),
        `${label}: ${method} ${path} ${JSON.stringify(headers ?? {})}`,
      );
    }
    // A route added while serving: Bun's snapshot of the routes would send
    // /users/me to /users/:id, the router sends it to the new route.
    router.get("/users/me", (c) => answer(c, "me"));
    const [ours, reference] = await Promise.all([
      raw(a!, "GET", "/users/me"),
      raw(b!, "GET", "/users/me"),
    ]);
    assert.equal(ours.headers["x-route"], "me");
    assert.deepEqual(comparable(ours), comparable(reference));
  } finally {
    console.error = error;
    await Promise.all(servers.map((server) => server.shutdown()));
  }
  if (onBun) {
    // Bun answered these itself, without calling the server's fetch: the
    // methods their routes have (a GET route's HEAD too), each a function
    // of its own that Bun picks by method.
    for (
      const call of [
        "GET /",
        "GET /about",
        "POST /about",
        "HEAD /about",
        "GET /users/1",
        "PUT /users/1",
        "HEAD /users/1",
        "GET /users/1/posts/2",
        "GET /staged/7",
        "HEAD /staged/7",
      ]
    ) {
      assert.ok(!methodCalls.includes(call), `${label}: ${call} not native`);
    }
    // Methods no route of the path has went to fetch (405, or 204 with
    // Allow for OPTIONS), as the router answers them.
    for (
      const call of ["PUT /about", "OPTIONS /about", "DELETE /users/1"]
    ) {
      assert.ok(methodCalls.includes(call), `${label}: ${call} native`);
    }
    // Paths Bun cannot route alike went to fetch.
    for (const path of ["/files/x/y", "/a/b/z"]) {
      assert.ok(wrapperCalls.includes(path), `${label}: ${path} native`);
    }
  }
}

Deno.test("native routes: answers match the router's own matcher, without router middleware", async () => {
  await compareAll(build(false), "no router middleware");
});

Deno.test("native routes: answers match the router's own matcher, with router middleware that changes the method", async () => {
  await compareAll(build(true), "router middleware");
});

Deno.test("native routes: static and uncontested parameter patterns only", () => {
  const routes = (build(false).fetch as unknown as Record<
    symbol,
    () => Record<string, unknown>
  >)[BUN_ROUTES]!();
  assert.deepEqual(Object.keys(routes).sort(), [
    "/",
    "/about",
    "/any",
    "/h",
    "/mw/:id",
    "/orgs/:orgId/teams/:teamId",
    "/staged/:id",
    "/throws/:id",
    "/users/:id",
    "/users/:userId/posts/:postId",
    "/users/new",
  ]);
});

Deno.test("native routes: one function per method where every method is Bun's to pick (a GET route's HEAD too); one function for ANY and other methods", () => {
  const router = createRouter();
  router.get("/about", () => new Response("get"));
  router.post("/about", () => new Response("post"));
  router.get("/users/:id", () => new Response("user"));
  router.head("/h", () => new Response(null));
  router.get("/h", () => new Response("h"));
  router.any("/any", () => new Response("any"));
  router.map(new Route("PROPFIND", "/dav"), () => new Response("dav"));
  const routes = (router.fetch as unknown as Record<
    symbol,
    () => Record<string, unknown>
  >)[BUN_ROUTES]!();
  const methodsOf = (key: string) => {
    const route = routes[key];
    return typeof route === "function"
      ? "function"
      : Object.keys(route as object).sort();
  };
  assert.deepEqual(methodsOf("/about"), ["GET", "HEAD", "POST"]);
  assert.deepEqual(methodsOf("/users/:id"), ["GET", "HEAD"]);
  // The HEAD route added answers HEAD, not the GET route's.
  assert.deepEqual(methodsOf("/h"), ["GET", "HEAD"]);
  assert.notEqual(
    (routes["/h"] as Record<string, unknown>).HEAD,
    (routes["/h"] as Record<string, unknown>).GET,
  );
  assert.equal(methodsOf("/any"), "function");
  assert.equal(methodsOf("/dav"), "function");
});

Deno.test("native routes: an event stream from a native route is ended by the shutdown, as the handler's are", async () => {
  const router = createRouter();
  router.get(
    "/events/:topic",
    ({ params }) =>
      createEventStreamResponse(async function* (signal: AbortSignal) {
        yield { data: `first ${params.topic}` };
        await new Promise((resolve) =>
          signal.addEventListener("abort", resolve)
        );
      }),
  );
  const server = serve(router.fetch, local);
  const response = await fetch(
    `http://127.0.0.1:${server.addr.port}/events/news`,
  );
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.equal(first, "data: first news\n\n");
  const t0 = Date.now();
  await server.shutdown();
  assert.ok(Date.now() - t0 < 2000, `finished in ${Date.now() - t0} ms`);
  let rest = await reader.read();
  while (!rest.done) rest = await reader.read();
});

Deno.test("native routes: a parameter pattern goes to Bun only when no other pattern could take its paths", () => {
  const keysOf = (patterns: string[]) => {
    const router = createRouter();
    for (const pattern of patterns) router.get(pattern, () => new Response());
    return Object.keys(
      (router.fetch as unknown as Record<
        symbol,
        () => Record<string, unknown>
      >)[BUN_ROUTES]!(),
    ).sort();
  };
  // Different text, or a different number of segments: no contest (and
  // every route Bun's: the wildcard takes what Bun matched to none).
  assert.deepEqual(
    keysOf(["/users/:id", "/posts/:id", "/users/:id/edit", "/users/new"]),
    ["/*", "/posts/:id", "/users/:id", "/users/:id/edit", "/users/new"],
  );
  // A wildcard, a parameter in the first segment, or a twin.
  assert.deepEqual(keysOf(["/users/:id", "/users/*"]), []);
  assert.deepEqual(keysOf(["/users/:id", "/:section/new"]), []);
  assert.deepEqual(keysOf(["/users/:id", "/users/:name"]), []);
  assert.deepEqual(keysOf(["/users/:id", "/posts/*"]), ["/users/:id"]);
  // Optional groups and parameters inside a segment stay with our matcher.
  assert.deepEqual(keysOf(["/a(/:b)", "/files/:name.:ext"]), []);
});

Deno.test("native routes: a pattern that names a parameter twice stays with the router (Bun.serve refuses it)", async () => {
  const router = createRouter();
  router.mount("/orgs/:id", (org) => {
    org.get("/teams/:id", ({ params }) => new Response(params.id));
  });
  router.get("/users/:id", ({ params }) => new Response(params.id));
  const routes = (router.fetch as unknown as Record<
    symbol,
    () => Record<string, unknown>
  >)[BUN_ROUTES]!();
  assert.deepEqual(Object.keys(routes), ["/users/:id"]);
  // Bun.serve threw "duplicate route parameter names" when given it.
  const server = serve(router.fetch, local);
  try {
    const base = `http://127.0.0.1:${server.addr.port}`;
    const team = await fetch(`${base}/orgs/1/teams/2`);
    assert.equal(await team.text(), "2");
    const user = await fetch(`${base}/users/3`);
    assert.equal(await user.text(), "3");
  } finally {
    await server.shutdown();
  }
});

/** A router all of whose routes go to Bun's router. */
function everyRouteNative(withRouterMiddleware: boolean): Router {
  const router = createRouter({
    middleware: withRouterMiddleware
      ? [(context, next) => {
        const override = context.headers.get("x-method");
        if (override !== null) context.method = override;
        return next();
      }]
      : [],
    defaultHandler: withRouterMiddleware
      ? (context) =>
        new Response(`none at ${context.url.pathname}`, {
          status: 404,
          headers: { "X-Route": "default" },
        })
      : undefined,
  });
  router.get("/", (c) => answer(c, "home"));
  router.get("/about", (c) => answer(c, "about GET"));
  router.post("/about", (c) => answer(c, "about POST"));
  router.get("/users/:id", (c) => answer(c, "user"));
  router.put("/users/:id", (c) => answer(c, "user PUT"));
  router.get("/users/:userId/posts/:postId", (c) => answer(c, "post"));
  router.get("/staged/:id", (context, next) => {
    context.responseHeaders.set("X-Staged", context.params.id ?? "");
    return next();
  }, (c) => answer(c, "staged"));
  router.any("/any", (c) => answer(c, "any"));
  return router;
}

Deno.test("native routes: with every route Bun's, what its router matched to none is answered as the router's matcher would", async () => {
  for (const withRouterMiddleware of [false, true]) {
    const router = everyRouteNative(withRouterMiddleware);
    const routes = (router.fetch as unknown as Record<
      symbol,
      () => Record<string, unknown>
    >)[BUN_ROUTES]!();
    assert.ok("/*" in routes);
    const wrapperCalls: string[] = [];
    const native = Object.assign(
      (request: Request, info: unknown) => {
        wrapperCalls.push(new URL(request.url).pathname);
        return router.fetch(request, info as { remoteAddr?: never });
      },
      { [BUN_ROUTES]: () => routes },
    );
    const plain = (request: Request, info: unknown) =>
      router.fetch(request, info as { remoteAddr?: never });
    const servers: Server[] = [serve(native, local), serve(plain, local)];
    const [a, b] = servers.map((server) => server.addr.port);
    try {
      for (
        const [method, path, headers] of [
          ...REQUESTS,
          // Bun's router sees the target as sent; the URL is normalised:
          // each of these reaches a route only through the router's own
          // matcher (or is its 404).
          ["GET", "/x/../about"],
          ["POST", "/x/../about"],
          ["DELETE", "/x/../about"],
          ["OPTIONS", "/x/../about"],
          ["GET", "/./about"],
          ["GET", "/about/."],
          ["GET", "/users/x/../1"],
          ["GET", "/users/1/posts/x/../2"],
          ["GET", "/%61bout"],
          ["PUT", "/%61bout"],
          ["GET", "/%61ny"],
          ["GET", "/users/1/x/.."],
          ["GET", "/nowhere/.."],
          ["GET", "/nowhere/../nowhere"],
          ["GET", "/x/y/../../about"],
          ["POST", "/x/y/../../about"],
          ["GET", "/x/y/z/../../../users/1"],
          ["GET", "/x/%2e%2e/y/../about"],
          ["GET", "/x/.%2E/y/%2e%2e/about"],
          ["GET", "/x\\..\\y/../about"],
          ["GET", "/a/b/c"],
          ["PUT", "/a/b/c/d/e/f/g/h"],
          ["GET", "/a/b/c/d/e/f/g/h/i"],
          ["GET", "/a/b%2F/c"],
          ["GET", "/a/b%20c/d"],
          ["HEAD", "/a/b/c"],
          // Methods Bun does not know: never taken as another method.
          ["FOO", "/any?/%E2%82%AC"],
          ["FOO", "/no/such/page"],
          ["FOO", "/a/b/c"],
          ["get", "/any"],
          ["Head", "/any"],
          ["get", "/a/b/c"],
          ["DELETE", "/no/such/page"],
          ["OPTIONS", "/no/such/page"],
          ["HEAD", "/no/such/page"],
          ["GET", "/no/such/page", { "X-Method": "POST" }],
          ["GET", "/x/../about", { "X-Method": "POST" }],
        ] as [string, string, Record<string, string>?][]
      ) {
        const [ours, reference] = await Promise.all([
          raw(a!, method, path, headers),
          raw(b!, method, path, headers),
        ]);
        assert.deepEqual(
          comparable(ours),
          comparable(reference),
          `${withRouterMiddleware}: ${method} ${path} ${
            JSON.stringify(headers ?? {})
          }`,
        );
      }
      // A route added while serving is found through the wildcard too.
      router.get("/late", (c) => answer(c, "late"));
      const late = await raw(a!, "GET", "/late");
      assert.equal(late.headers["x-route"], "late");
    } finally {
      await Promise.all(servers.map((server) => server.shutdown()));
    }
    if (onBun) {
      // Bun's router took the misses to the wildcard, not to fetch.
      assert.ok(!wrapperCalls.includes("/no/such/page"), `${wrapperCalls}`);
      assert.ok(!wrapperCalls.includes("/about"), `${wrapperCalls}`);
    }
  }
});

Deno.test("native routes: a miss of Bun's router comes with a check that rules out without the matcher only a path no route could have", () => {
  const registered: Registered<string>[] = [
    ["GET", "/"],
    ["GET", "/about"],
    ["POST", "/about"],
    ["GET", "/users/:id"],
    ["GET", "/users/:userId/posts/:postId"],
    ["GET", "/docs/:lang/:page"],
    ["GET", "/:lang/a/b/c/d"],
  ].map(([method, pattern]) => ({
    method: method!,
    pattern: pattern!,
    value: pattern!,
  }));
  const calls: [string | undefined, Absent | undefined][] = [];
  const routes = nativeRoutes(
    registered,
    () => new Response("matched"),
    () => new Response("fallback"),
    (_request, _info, _done, method, absent) => {
      calls.push([method, absent]);
      return new Response("missed");
    },
  );
  // One function, which reads the method: a method-keyed wildcard makes
  // Bun hand a method it does not know to its GET function.
  const star = routes["/*"] as (r: Request, i: unknown) => unknown;
  assert.equal(typeof star, "function");
  star(new Request("http://localhost/no"), undefined);
  const [[method, absent]] = calls;
  assert.equal(method, undefined);
  // No route of that many segments, or none with that first segment.
  for (
    const url of [
      "http://localhost/no/such/page",
      "http://localhost/no/such/page?x=1",
      "https://localhost/no/such/page",
      "http://127.0.0.1:8000/nowhere",
      "http://[::1]:8000/users",
      "http://localhost/users/1/posts",
      "http://localhost/about/x/y/z",
      "http://localhost/zz/zz/zz",
      // Trailing slashes are strict: `/about` does not have it.
      "http://localhost/about/",
      "http://localhost//",
    ]
  ) assert.equal(absent!({ url } as Request), true, url);
  // A route could have it (or a path only the matcher reads alike): the
  // router's matcher decides.
  for (
    const url of [
      "http://localhost/",
      "http://localhost/?x",
      "http://localhost/about",
      "http://localhost/users/1",
      "http://localhost/users/",
      "http://localhost/users/1/posts/2",
      "http://localhost/docs/en/x",
      "http://localhost/docs/en/",
      "http://localhost/q/w/e/r/t",
      "http://localhost/%61bout",
      "http://localhost/a%20b",
      "http://localhost/caf\u00e9",
      "http://localhost/a\\b",
      "http://localhost/a#f",
      "http://user@localhost/no/such/page",
      "http://a%20b/no/such/page",
      "/no/such/page",
      "ftp://localhost/no",
    ]
  ) assert.equal(absent!({ url } as Request), false, url);
  // A route added since: the matcher decides.
  registered.push({ method: "GET", pattern: "/no/such/page", value: "late" });
  const late = (url: string) => absent!({ url } as Request);
  assert.equal(late("http://localhost/no/such/page"), false);
  assert.equal(late("http://localhost/nowhere"), false);
});

const PATH_PIECES = [
  "/",
  "//",
  "users",
  "about",
  "new",
  "posts",
  "orgs",
  "teams",
  "mw",
  "staged",
  "h",
  "any",
  "1",
  "a",
  "%2F",
  "%2e",
  "%2e%2e",
  ".",
  "..",
  "%",
  "%ZZ",
  "%C3",
  "%E2%82%AC",
  "%61",
  "a%20b",
  "\\",
  ";",
  "~",
  "-",
  "é",
  "?x=1",
  "#f",
  "?",
  "%3F",
  "%23",
  "+",
  "%00",
  "%7E",
  "%2f",
  "ABOUT",
  "Users",
  "users%2F1",
  "%252F",
  "*",
  ":",
  "@",
  "(",
  "'",
  "%5C",
  "%2E%2E",
  ".%2e",
  "%u0041",
  "\t",
  "%FF",
  "%EF%BF%BD",
];
const METHODS = [
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "PATCH",
  "OPTIONS",
  "get",
  "Head",
  "TRACE",
  "CONNECT",
  "FOO",
];

Deno.test("native routes: random paths and methods answer alike (seeded)", async () => {
  const seed = Date.now() >>> 0;
  const rng = new Rng(seed);
  // The same routes with some that Bun cannot take, and every route Bun's
  // (its misses go to the wildcard and the patterns of parameters).
  for (
    const [withMiddleware, router] of [
      [false, build(false)],
      [true, build(true)],
      [false, everyRouteNative(false)],
      [true, everyRouteNative(true)],
    ] as const
  ) {
    const native = Object.assign(
      (request: Request, info: unknown) =>
        router.fetch(request, info as { remoteAddr?: never }),
      {
        [BUN_ROUTES]: (router.fetch as unknown as Record<
          symbol,
          () => unknown
        >)[BUN_ROUTES],
      },
    );
    const plain = (request: Request, info: unknown) =>
      router.fetch(request, info as { remoteAddr?: never });
    const servers = [serve(native, local), serve(plain, local)];
    const [a, b] = servers.map((server) => server.addr.port);
    const error = console.error;
    console.error = () => {};
    try {
      for (let i = 0; i < 300; i++) {
        let path = "/";
        const count = rng.int(1, 5);
        for (let j = 0; j < count; j++) {
          const piece = rng.pick(PATH_PIECES);
          path += path.endsWith("/") || piece.startsWith("/") ||
              piece.startsWith("?") || piece.startsWith("#")
            ? piece
            : `/${piece}`;
        }
        const method = rng.pick(METHODS);
        const headers: Record<string, string> = rng.chance(0.2)
          ? { "X-Method": rng.pick(METHODS) }
          : {};
        const [ours, reference] = await Promise.all([
          raw(a!, method, path, headers),
          raw(b!, method, path, headers),
        ]);
        assert.deepEqual(
          comparable(ours),
          comparable(reference),
          `seed ${seed}, request ${i}: ${method} ${path} ${
            JSON.stringify(headers)
          } (router middleware: ${withMiddleware})`,
        );
      }
    } finally {
      console.error = error;
      await Promise.all(servers.map((server) => server.shutdown()));
    }
  }
});
