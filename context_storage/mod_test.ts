import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  contextStorage,
  findRequestContext,
  getRequestContext,
} from "@fetchkit/toolkit/context-storage";

const Id = createContextKey<number>(-1, "Id");

function tick(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A "repository" function several calls away from the handler.
async function deepRead(): Promise<number> {
  await tick(Math.random() * 3);
  await Promise.resolve();
  return getRequestContext().get(Id);
}

Deno.test("getRequestContext() outside a request throws a clear error", () => {
  assert.throws(
    () => getRequestContext(),
    (error: Error) =>
      error.message.includes("outside a request") &&
      error.message.includes("contextStorage()"),
  );
  assert.equal(findRequestContext(), undefined);
});

Deno.test("getRequestContext() without the middleware throws", async () => {
  const router = createRouter();
  router.get("/", () => {
    assert.throws(() => getRequestContext(), /outside a request/);
    return new Response("ok");
  });
  assert.equal((await router.fetch(new Request("http://x/"))).status, 200);
});

Deno.test("the handler's own context is returned, across awaits and timers", async () => {
  const router = createRouter({ middleware: [contextStorage()] });
  router.get("/items/:id", async (context) => {
    context.set(Id, Number(context.params.id));
    assert.equal(getRequestContext(), context);
    const viaTimer = await new Promise<number>((resolve) =>
      setTimeout(() => resolve(getRequestContext().get(Id)), 1)
    );
    return Response.json({ deep: await deepRead(), viaTimer });
  });
  const response = await router.fetch(new Request("http://x/items/7"));
  assert.deepEqual(await response.json(), { deep: 7, viaTimer: 7 });
});

Deno.test("1,000 interleaved requests never see each other's context", async () => {
  const router = createRouter({
    middleware: [contextStorage(), async (context, next) => {
      context.set(Id, Number(context.url.searchParams.get("n")));
      await tick(Math.random() * 5);
      return next();
    }],
  });
  router.get("/", async (context) => {
    const seen: number[] = [];
    for (let i = 0; i < 3; i++) {
      seen.push(await deepRead());
      assert.equal(getRequestContext(), context);
    }
    return Response.json(seen);
  });
  const count = 1000;
  const responses = await Promise.all(
    Array.from(
      { length: count },
      (_, n) =>
        Promise.resolve(router.fetch(new Request(`http://x/?n=${n}`))).then((
          r,
        ) => r.json()),
    ),
  );
  for (let n = 0; n < count; n++) {
    assert.deepEqual(responses[n], [n, n, n], `request ${n}`);
  }
  // And nothing leaks out once the requests are done.
  assert.equal(findRequestContext(), undefined);
});

Deno.test("a context set in an inner router scope is the same object", async () => {
  const router = createRouter({ middleware: [contextStorage()] });
  router.mount("/api", (api) => {
    api.use((context, next) => {
      context.set(Id, 42);
      return next();
    });
    api.get("/x", () => new Response(String(getRequestContext().get(Id))));
  });
  assert.equal(
    await (await router.fetch(new Request("http://x/api/x"))).text(),
    "42",
  );
});
