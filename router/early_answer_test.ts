// Early answers (router/early_answer.ts): a route's first middleware that
// offers one is asked before the context and chain are built, only when
// nothing can run before it; otherwise, and whenever it gives nothing, the
// request takes the ordinary way. Portable (runs on Node and Bun, and on
// Bun's native routes).

import assert from "node:assert/strict";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { offerEarlyAnswer } from "./early_answer.ts";

/**
 * A middleware that answers "late" (and counts its runs) and offers an
 * early answer "early" for GET and HEAD (`HEAD` without a body, unless
 * `headBody`), or nothing for `/skip` or when `throws`.
 */
function earlyMiddleware(
  options: { throws?: boolean; headBody?: boolean } = {},
): Middleware & { runs: number; asked: number } {
  const middleware = Object.assign(
    ((_context, _next) => {
      middleware.runs++;
      return new Response("late");
    }) as Middleware,
    { runs: 0, asked: 0 },
  );
  offerEarlyAnswer(middleware, (request, method) => {
    middleware.asked++;
    if (options.throws) throw new Error("early failed");
    if (new URL(request.url).pathname.endsWith("/skip")) return undefined;
    if (method === "HEAD" && !options.headBody) {
      return new Response(null, { headers: { "X-Answer": "early" } });
    }
    return new Response("early", { headers: { "X-Answer": "early" } });
  });
  return middleware;
}

const get = (path: string, method = "GET") =>
  new Request(`http://localhost${path}`, { method });

Deno.test("early answer: a route's first middleware answers before its chain", async () => {
  const router = createRouter();
  const first = earlyMiddleware();
  let handled = 0;
  router.get("/page", first, () => {
    handled++;
    return new Response("handler");
  });
  router.get("/items/:id", first, () => new Response("item"));
  assert.equal(await (await router.fetch(get("/page"))).text(), "early");
  assert.equal(await (await router.fetch(get("/items/7"))).text(), "early");
  const head = await router.fetch(get("/page", "HEAD"));
  assert.equal(head.headers.get("X-Answer"), "early");
  assert.equal(await head.text(), "");
  assert.equal(first.runs, 0);
  assert.equal(handled, 0);
});

Deno.test("early answer: nothing given, or a throw, takes the ordinary way through the same middleware", async () => {
  const router = createRouter();
  const first = earlyMiddleware();
  router.get("/skip", first, () => new Response("handler"));
  assert.equal(await (await router.fetch(get("/skip"))).text(), "late");
  assert.equal(first.runs, 1);

  const failing = createRouter();
  const throws = earlyMiddleware({ throws: true });
  failing.get("/page", throws, () => new Response("handler"));
  assert.equal(await (await failing.fetch(get("/page"))).text(), "late");
  assert.equal(throws.runs, 1);

  // A HEAD answer with a body is not sent: the ordinary way strips it.
  const heads = createRouter();
  const bodied = earlyMiddleware({ headBody: true });
  heads.get("/page", bodied, () => new Response("handler"));
  const head = await heads.fetch(get("/page", "HEAD"));
  assert.equal(await head.text(), "");
  assert.equal(bodied.runs, 1);
});

Deno.test("early answer: not asked when middleware runs before it (router, mount, or the route's own)", async () => {
  const order: string[] = [];
  const mark = (name: string): Middleware => (context, next) => {
    order.push(name);
    context.responseHeaders.set(`X-${name}`, "1");
    return next();
  };
  const router = createRouter({ middleware: [mark("router")] });
  const first = earlyMiddleware();
  router.get("/page", first, () => new Response("handler"));
  const response = await router.fetch(get("/page"));
  assert.equal(await response.text(), "late");
  assert.equal(response.headers.get("X-router"), "1");
  assert.deepEqual(order, ["router"]);
  assert.equal(first.asked, 0);

  const mounted = createRouter();
  const inner = earlyMiddleware();
  mounted.mount("/admin", (admin) => {
    admin.use(mark("mount"));
    admin.get("/page", inner, () => new Response("handler"));
  });
  const own = earlyMiddleware();
  mounted.get("/own", mark("own"), own, () => new Response("handler"));
  order.length = 0;
  assert.equal(await (await mounted.fetch(get("/admin/page"))).text(), "late");
  assert.equal(await (await mounted.fetch(get("/own"))).text(), "late");
  assert.deepEqual(order, ["mount", "own"]);
  assert.equal(inner.asked + own.asked, 0);
  assert.equal(inner.runs + own.runs, 2);
});

Deno.test("early answer: a router with one still routes the others, 404 and 405 as before", async () => {
  const router = createRouter();
  router.get("/page", earlyMiddleware(), () => new Response("handler"));
  router.get(
    "/users/:id",
    ({ params, routePattern }) => new Response(`${params.id} ${routePattern}`),
  );
  router.post("/form", () => new Response("posted"));
  assert.equal(
    await (await router.fetch(get("/users/42"))).text(),
    "42 /users/:id",
  );
  assert.equal((await router.fetch(get("/nowhere"))).status, 404);
  const wrong = await router.fetch(get("/form"));
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("Allow"), "POST");
  assert.equal(
    await (await router.fetch(get("/form", "POST"))).text(),
    "posted",
  );
  // Not a GET route's method: the early answer is asked with it and may
  // decline; this one answers only what it is asked for.
  assert.equal((await router.fetch(get("/page", "DELETE"))).status, 405);
});
