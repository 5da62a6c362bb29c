// requireReauth() and the mark through a real router and real sessions:
// pages go to the confirm page with a local returnTo, JSON clients get
// 401, a fresh mark lets through, an old or future one does not.
// Portable: runs on Node and Bun too.
import assert from "node:assert/strict";
import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import {
  clearReauthentication,
  markReauthenticated,
  reauthMark,
  requireReauth,
} from "@fetchkit/toolkit/reauth-middleware";

const Sess = createContextKey<Session>();

function app(clock: { now: number }, maxAgeMs?: number): Router {
  const router = createRouter({
    middleware: [
      session(
        Sess,
        createMemorySessionStorage({
          cookie: { secrets: ["s".repeat(32)], secure: false },
        }),
      ),
    ],
  });
  const sudo = requireReauth({
    session: Sess,
    confirmPath: "/auth/confirm",
    maxAgeMs,
    now: () => clock.now,
  });
  router.get("/settings", sudo, () => new Response("settings"));
  router.post("/settings", sudo, () => new Response("saved"));
  router.post("/confirm", (context) => {
    markReauthenticated(context.get(Sess)!, "password", { now: clock.now });
    return new Response("confirmed");
  });
  router.post("/logout", (context) => {
    clearReauthentication(context.get(Sess)!);
    return new Response("out");
  });
  router.get(
    "/mark",
    (context) => Response.json(reauthMark(context.get(Sess)!) ?? null),
  );
  return router;
}

async function call(
  router: Router,
  path: string,
  init: RequestInit & { cookie?: string } = {},
): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("cookie", init.cookie);
  return await router.fetch(
    new Request(`http://localhost${path}`, { ...init, headers }),
  );
}

function cookieOf(response: Response): string {
  return response.headers.get("set-cookie")!.split(";")[0];
}

Deno.test("requireReauth: a page without a mark → 303 to the confirm page with returnTo", async () => {
  const router = app({ now: 0 });
  const response = await call(router, "/settings?tab=2fa");
  assert.equal(response.status, 303);
  assert.equal(
    response.headers.get("location"),
    "/auth/confirm?returnTo=%2Fsettings%3Ftab%3D2fa",
  );
  // A form post comes back to its page's path, without the query.
  const post = await call(router, "/settings?x=1", { method: "POST" });
  assert.equal(post.status, 303);
  assert.equal(
    post.headers.get("location"),
    "/auth/confirm?returnTo=%2Fsettings",
  );
});

Deno.test("requireReauth: a client preferring JSON gets 401 with where to confirm", async () => {
  const router = app({ now: 0 });
  const response = await call(router, "/settings", {
    method: "POST",
    headers: { Accept: "application/json" },
  });
  assert.equal(response.status, 401);
  assert.deepEqual(await response.json(), {
    error: "Confirm your password or passkey to continue",
    confirm: "/auth/confirm?returnTo=%2Fsettings",
  });
});

Deno.test("requireReauth: a mark lets through for maxAgeMs (default 10 minutes), not after", async () => {
  const clock = { now: 1_000_000 };
  const router = app(clock);
  const confirmed = await call(router, "/confirm", { method: "POST" });
  const cookie = cookieOf(confirmed);
  assert.deepEqual(await (await call(router, "/mark", { cookie })).json(), {
    at: 1_000_000,
    method: "password",
  });
  clock.now += 10 * 60 * 1000;
  assert.equal(
    await (await call(router, "/settings", { cookie })).text(),
    "settings",
  );
  clock.now += 1;
  assert.equal((await call(router, "/settings", { cookie })).status, 303);
  // A mark from the future (the clock stepped back) counts as none.
  clock.now = 0;
  assert.equal((await call(router, "/settings", { cookie })).status, 303);
});

Deno.test("requireReauth: maxAgeMs shortens it; sign-out clears the mark", async () => {
  const clock = { now: 0 };
  const router = app(clock, 1000);
  const cookie = cookieOf(await call(router, "/confirm", { method: "POST" }));
  clock.now = 1001;
  assert.equal((await call(router, "/settings", { cookie })).status, 303);
  clock.now = 0;
  assert.equal((await call(router, "/settings", { cookie })).status, 200);
  await call(router, "/logout", { method: "POST", cookie });
  assert.equal((await call(router, "/settings", { cookie })).status, 303);
});

Deno.test("requireReauth: returnTo never leaves the site; bad options are TypeErrors", async () => {
  const router = createRouter({
    middleware: [
      session(
        Sess,
        createMemorySessionStorage({ cookie: { secrets: ["s".repeat(32)] } }),
      ),
    ],
  });
  for (const bad of ["//evil.example/x", "https://evil.example", "/\\evil"]) {
    router.get(
      `/x${bad.length}`,
      requireReauth({ session: Sess, confirmPath: "/c", returnTo: () => bad }),
      () => new Response("x"),
    );
    const response = await call(router, `/x${bad.length}`);
    assert.equal(response.headers.get("location"), "/c?returnTo=%2F", bad);
  }
  assert.throws(
    () => requireReauth({ session: Sess, confirmPath: "//evil.example" }),
    /confirmPath must be a local path/,
  );
  assert.throws(
    () => requireReauth({ session: Sess, confirmPath: "/c", maxAgeMs: 0 }),
    /maxAgeMs must be a positive number/,
  );
  assert.throws(
    () => markReauthenticated({ get() {}, set() {}, unset() {} }, ""),
    /method must be a word/,
  );
});

Deno.test("requireReauth: without session() before it, a clear error (a 500)", async () => {
  const router = createRouter();
  router.get(
    "/x",
    requireReauth({ session: Sess, confirmPath: "/c" }),
    () => new Response("x"),
  );
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    assert.equal(
      (await router.fetch(new Request("http://localhost/x"))).status,
      500,
    );
  } finally {
    console.error = original;
  }
  assert.match(String(errors[0]), /put session\(\) before it/);
});
