// The chain's links run as copies of their own (code from text) where the
// runtime allows it, and as the one shared function where it does not:
// every rule of `next()` holds both ways.
import assert from "node:assert/strict";
import {
  createRouter,
  type Middleware,
  type RouterOptions,
} from "@fetchkit/toolkit/fetch-router";
import { compose, generateLinks } from "./_chain.ts";
import { ANSWERS } from "./answers_itself.ts";

const get = (path: string) => new Request(`http://localhost${path}`);

/** Runs `body` with links copied (`true`) or shared (`false`). */
function each(
  name: string,
  body: (
    make: (options?: RouterOptions) => ReturnType<typeof createRouter>,
  ) => Promise<void>,
): void {
  for (const copies of [true, false]) {
    Deno.test(`${name} (links ${copies ? "copied" : "shared"})`, async () => {
      const previous = generateLinks(copies);
      try {
        await body((options) => createRouter(options));
      } finally {
        generateLinks(previous);
      }
    });
  }
}

Deno.test("links are copies of their own where code from text is allowed", () => {
  const previous = generateLinks(undefined);
  try {
    const run = compose([(_context, next) => next()], () => new Response());
    assert.equal(generateLinks(previous), true);
    // A copy is a function of its own, not the shared factory's closure.
    const again = compose([(_context, next) => next()], () => new Response());
    assert.notEqual(run, again);
  } finally {
    generateLinks(previous);
  }
});

each("three middlewares in order, the handler last", async (make) => {
  const order: string[] = [];
  const mark = (name: string): Middleware => (_context, next) => {
    order.push(name);
    return next();
  };
  const router = make();
  router.get("/", mark("a"), mark("b"), mark("c"), () => {
    order.push("handler");
    return new Response("ok");
  });
  const response = await router.fetch(get("/"));
  assert.equal(await response.text(), "ok");
  assert.deepEqual(order, ["a", "b", "c", "handler"]);
});

each("next() twice throws, named by the middleware's place", async (make) => {
  let message = "";
  const router = make({
    onError: (error) => {
      message = (error as Error).message;
      return new Response("error", { status: 500 });
    },
  });
  router.get(
    "/",
    (_context, next) => next(),
    async function twice(_context, next) {
      await next();
      return next();
    },
    () => new Response("ok"),
  );
  assert.equal((await router.fetch(get("/"))).status, 500);
  assert.match(message, /next\(\) called twice in middleware #1 \(twice\)/);
});

each("a middleware that answers, throws or never calls next", async (make) => {
  const router = make({
    onError: (error) =>
      new Response(`caught ${(error as Error).message}`, { status: 500 }),
  });
  let reached = 0;
  const handler = () => {
    reached++;
    return new Response("handler");
  };
  router.get("/answers", () => new Response("early"), handler);
  router.get("/throws", () => {
    throw new Error("boom");
  }, handler);
  router.get("/rejects", async () => {
    await Promise.resolve();
    throw new Error("later");
  }, handler);
  router.get("/nothing", () => {}, handler);
  router.get("/bad", () => 42 as unknown as Response, handler);
  assert.equal(await (await router.fetch(get("/answers"))).text(), "early");
  const thrown = await router.fetch(get("/throws"));
  assert.equal(thrown.status, 500);
  assert.equal(await thrown.text(), "caught boom");
  assert.equal(
    await (await router.fetch(get("/rejects"))).text(),
    "caught later",
  );
  // Nothing returned continues the chain.
  assert.equal(await (await router.fetch(get("/nothing"))).text(), "handler");
  const bad = await router.fetch(get("/bad"));
  assert.equal(bad.status, 500);
  assert.match(await bad.text(), /Middleware #0 .* returned number/);
  assert.equal(reached, 1);
});

each("sync and async middleware mixed, an outer one catching", async (make) => {
  const router = make();
  router.get(
    "/",
    async (_context, next) => {
      try {
        return await next();
      } catch (error) {
        return new Response(`outer caught ${(error as Error).message}`);
      }
    },
    (_context, next) => next(),
    async (_context, next) => {
      const response = await next();
      response.headers.set("x-after", "1");
      return response;
    },
    () => {
      throw new Error("inner");
    },
  );
  router.get(
    "/ok",
    (_context, next) => next(),
    async (context, next) => {
      await Promise.resolve();
      context.responseHeaders.set("x-staged", "yes");
      await next();
    },
    (_context, next) => next(),
    () => new Response("fine"),
  );
  assert.equal(
    await (await router.fetch(get("/"))).text(),
    "outer caught inner",
  );
  const ok = await router.fetch(get("/ok"));
  assert.equal(await ok.text(), "fine");
  assert.equal(ok.headers.get("x-staged"), "yes");
});

each("a middleware marked ANSWERS settles through answer", async (make) => {
  const answering = Object.assign(
    async (
      _context: unknown,
      next: () => Promise<Response>,
      answer: (value: Response | void) => Response | Promise<Response>,
    ) => {
      await Promise.resolve();
      return answer(await next().then(() => undefined));
    },
    { [ANSWERS]: true },
  ) as unknown as Middleware;
  const refusing = Object.assign(
    async (
      _context: unknown,
      _next: () => Promise<Response>,
      answer: (value: Response | void) => Response | Promise<Response>,
    ) => {
      await Promise.resolve();
      return answer(new Response("refused", { status: 413 }));
    },
    { [ANSWERS]: true },
  ) as unknown as Middleware;
  const router = make();
  router.get(
    "/",
    (context, next) => {
      context.responseHeaders.set("x-staged", "on");
      return next();
    },
    answering,
    () => new Response("through"),
  );
  router.get("/refused", refusing, () => new Response("never"));
  const response = await router.fetch(get("/"));
  assert.equal(await response.text(), "through");
  assert.equal(response.headers.get("x-staged"), "on");
  const refused = await router.fetch(get("/refused"));
  assert.equal(refused.status, 413);
  assert.equal(await refused.text(), "refused");
});

each(
  "the router's own middleware around a route's chain, HEAD cut",
  async (make) => {
    const router = make({
      middleware: [(context, next) => {
        context.responseHeaders.set("x-router", "1");
        return next();
      }],
    });
    router.get("/", (_context, next) => next(), () => new Response("body"));
    const head = await router.fetch(
      new Request("http://localhost/", { method: "HEAD" }),
    );
    assert.equal(head.headers.get("x-router"), "1");
    assert.equal(await head.text(), "");
    const response = await router.fetch(get("/"));
    assert.equal(await response.text(), "body");
  },
);
