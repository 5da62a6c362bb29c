// cache() never hands a page built from a credential (the session, a
// cookie-borne JWT, Authorization) to another visitor, whatever the order
// of cache() and the middleware that read the credential, with etag() and
// compress() in the chain too. Portable: runs on Node and Bun.

import assert from "node:assert/strict";
import {
  createContextKey,
  createRouter,
  type Middleware,
} from "@fetchkit/toolkit/fetch-router";
import {
  cache,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { etag } from "@fetchkit/toolkit/etag-middleware";
import { compress } from "@fetchkit/toolkit/compress-middleware";
import { jwt, JwtPayload, signJwt } from "@fetchkit/toolkit/jwt-middleware";
import {
  bearerAuth,
  BearerToken,
} from "@fetchkit/toolkit/bearer-auth-middleware";
import {
  basicAuth,
  BasicAuthUser,
} from "@fetchkit/toolkit/basic-auth-middleware";

const Sess = createContextKey<Session>();
const cookie = { name: "sid", secrets: ["s".repeat(32)] };
// A page long enough for compress() to compress.
const padding = " ".repeat(2048);

type Order = "session outside cache" | "cache outside session";
type Extra = "alone" | "etag and compress inside" | "etag and compress outside";

function sessionApp(order: Order, extra: Extra, cookieStorage = false) {
  const storage = cookieStorage
    ? createCookieSessionStorage({ cookie })
    : createMemorySessionStorage({ cookie });
  const store = createMemoryCacheStore();
  const around: Middleware[] = extra === "alone" ? [] : [etag(), compress()];
  const pair = order === "session outside cache"
    ? [session(Sess, storage), cache({ store, ttl: 60 })]
    : [cache({ store, ttl: 60 }), session(Sess, storage)];
  const middleware = extra === "etag and compress outside"
    ? [...around, ...pair]
    : [...pair, ...around];
  const router = createRouter({ middleware });
  let built = 0;
  router.post("/login", ({ get }) => {
    get(Sess)!.set("user", "alice");
    return new Response("signed in");
  });
  router.get("/page", ({ get }) => {
    built++;
    const user = get(Sess)!.get("user") ?? "guest";
    return new Response(`Hello, ${user}${padding}`, {
      headers: { "Content-Type": "text/html; charset=utf-8" },
    });
  });
  router.get("/shared", ({ get }) => {
    built++;
    get(Sess)!.get("user");
    return new Response(`the same for everyone${padding}`, {
      headers: {
        "Content-Type": "text/html",
        "Cache-Control": "public, max-age=60",
      },
    });
  });
  const fetch = (path: string, init?: RequestInit) =>
    router.fetch(new Request(`http://localhost${path}`, init));
  return { fetch, built: () => built };
}

for (
  const order of ["session outside cache", "cache outside session"] as const
) {
  for (
    const extra of [
      "alone",
      "etag and compress inside",
      "etag and compress outside",
    ] as const
  ) {
    for (const cookieStorage of [false, true]) {
      const what = `${order}, ${extra}, ${
        cookieStorage ? "cookie" : "memory"
      } sessions`;
      Deno.test(`cache: a page that read the session never reaches another visitor (${what})`, async () => {
        const { fetch, built } = sessionApp(order, extra, cookieStorage);
        const login = await fetch("/login", { method: "POST" });
        const sid = login.headers.get("set-cookie")!.split(";")[0];
        await login.body?.cancel();
        const headers = { cookie: sid, "accept-encoding": "gzip" };
        const alice = await fetch("/page", { headers });
        assert.equal(alice.status, 200);
        const aliceText = alice.headers.get("content-encoding") === null
          ? await alice.text()
          : await new Response(
            alice.body!.pipeThrough(new DecompressionStream("gzip")),
          ).text();
        assert.match(aliceText, /^Hello, alice/);
        for (
          const visitor of [{}, { "accept-encoding": "gzip" }] as Record<
            string,
            string
          >[]
        ) {
          const other = await fetch("/page", { headers: visitor });
          assert.notEqual(other.headers.get("x-cache"), "HIT", what);
          const text = other.headers.get("content-encoding") === null
            ? await other.text()
            : await new Response(
              other.body!.pipeThrough(new DecompressionStream("gzip")),
            ).text();
          assert.match(text, /^Hello, guest/, what);
        }
        // Alice again: her own page, built again.
        const again = await fetch("/page", { headers });
        assert.notEqual(again.headers.get("x-cache"), "HIT");
        await again.body?.cancel();
        assert.equal(built(), 4);
      });
    }
  }
}

Deno.test("cache: a page that read the session and says public is stored (session outside cache)", async () => {
  const { fetch, built } = sessionApp("session outside cache", "alone");
  const first = await fetch("/shared");
  assert.equal(first.headers.get("x-cache"), "MISS");
  await first.body?.cancel();
  const second = await fetch("/shared");
  assert.equal(second.headers.get("x-cache"), "HIT");
  await second.body?.cancel();
  assert.equal(built(), 1);
});

const secret = "a-secret-of-at-least-32-bytes-for-hs256";

for (const order of ["jwt outside cache", "cache outside jwt"] as const) {
  Deno.test(`cache: a page built from a cookie-borne JWT is not stored (${order})`, async () => {
    const store = createMemoryCacheStore();
    const auth = jwt({ secret, algorithms: ["HS256"], cookie: "token" });
    const router = createRouter({
      middleware: order === "jwt outside cache"
        ? [auth, cache({ store })]
        : [cache({ store }), auth],
    });
    let built = 0;
    router.get("/me", ({ get }) => {
      built++;
      return new Response(`Hello, ${get(JwtPayload)!.sub}`);
    });
    const tokenOf = (sub: string) =>
      signJwt({ sub }, secret, { algorithm: "HS256" });
    const as = async (sub: string) =>
      await router.fetch(
        new Request("http://localhost/me", {
          headers: { cookie: `token=${await tokenOf(sub)}` },
        }),
      );
    const alice = await as("alice");
    assert.equal(await alice.text(), "Hello, alice");
    const bob = await as("bob");
    assert.notEqual(bob.headers.get("x-cache"), "HIT");
    assert.equal(await bob.text(), "Hello, bob");
    // Downstream shared caches (a CDN) cannot see the cookie in their key.
    assert.equal(alice.headers.get("cache-control"), "no-store");
    const nobody = await router.fetch(new Request("http://localhost/me"));
    assert.equal(nobody.status, 401);
    await nobody.body?.cancel();
    assert.equal(built, 2);
  });
}

Deno.test("cache: pages behind bearerAuth() and basicAuth() are not stored, in either order", async () => {
  for (const outside of [true, false]) {
    const cases: [
      Middleware,
      (n: number) => RequestInit,
      (get: never) => string,
    ][] = [
      [
        bearerAuth({ token: ["token-one-0123456789", "token-two-0123456789"] }),
        (n) => ({
          headers: {
            authorization: `Bearer token-${n === 1 ? "one" : "two"}-0123456789`,
          },
        }),
        // deno-lint-ignore no-explicit-any
        (get: any) => get(BearerToken),
      ],
      [
        basicAuth({ realm: "r", users: { one: "pw-one", two: "pw-two" } }),
        (n) => ({
          headers: {
            authorization: "Basic " +
              btoa(n === 1 ? "one:pw-one" : "two:pw-two"),
          },
        }),
        // deno-lint-ignore no-explicit-any
        (get: any) => get(BasicAuthUser),
      ],
    ];
    for (const [auth, init, who] of cases) {
      const store = createMemoryCacheStore();
      const router = createRouter({
        middleware: outside
          ? [auth, cache({ store })]
          : [cache({ store }), auth],
      });
      router.get(
        "/me",
        ({ get }) => new Response(`Hello, ${who(get as never)}`),
      );
      const one = await router.fetch(
        new Request("http://localhost/me", init(1)),
      );
      const text = await one.text();
      const two = await router.fetch(
        new Request("http://localhost/me", init(2)),
      );
      assert.notEqual(two.headers.get("x-cache"), "HIT");
      assert.notEqual(await two.text(), text);
    }
  }
});

for (
  const order of ["session outside cache", "cache outside session"] as const
) {
  Deno.test(`cache: a mount()ed section's page read from the session is kept from others through HEAD, a 304 and a background regeneration (${order})`, async () => {
    const storage = createMemorySessionStorage({ cookie });
    const store = createMemoryCacheStore();
    const pair = order === "session outside cache"
      ? [session(Sess, storage), cache({ store })]
      : [cache({ store }), session(Sess, storage)];
    const router = createRouter({ middleware: [etag()] });
    let built = 0;
    router.mount("/app", (section) => {
      section.use(...pair);
      section.post("/login", ({ get }) => {
        get(Sess)!.set("user", "alice");
        return new Response("signed in");
      });
      // Reads the session only when a cookie came: a guest's page is
      // shared (max-age=1, then 60 s stale), a signed-in one is not.
      section.get("/home", ({ get, request }) => {
        built++;
        const user = request.headers.has("cookie")
          ? get(Sess)!.get("user") ?? "guest"
          : "guest";
        return new Response(`Hello, ${user}`, {
          headers: {
            "Content-Type": "text/plain",
            "Cache-Control": "max-age=1, stale-while-revalidate=60",
          },
        });
      });
    });
    const fetch = (path: string, init?: RequestInit) =>
      router.fetch(new Request(`http://localhost${path}`, init));
    const login = await fetch("/app/login", { method: "POST" });
    const sid = login.headers.get("set-cookie")!.split(";")[0];
    await login.body?.cancel();

    // HEAD and a conditional GET by Alice store nothing.
    const head = await fetch("/app/home", {
      method: "HEAD",
      headers: { cookie: sid },
    });
    assert.equal(head.status, 200);
    const tag = head.headers.get("etag");
    if (tag !== null) {
      const conditional = await fetch("/app/home", {
        headers: { cookie: sid, "if-none-match": tag },
      });
      await conditional.body?.cancel();
    }
    const guest = await fetch("/app/home");
    assert.equal(await guest.text(), "Hello, guest");

    // The guest's page goes stale; Alice's request regenerates it in the
    // background, as Alice: that page must not replace the shared one.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const stale = await fetch("/app/home", { headers: { cookie: sid } });
    assert.equal(stale.headers.get("x-cache"), "STALE");
    assert.equal(await stale.text(), "Hello, guest");
    await new Promise((resolve) => setTimeout(resolve, 50));
    for (let i = 0; i < 3; i++) {
      const other = await fetch("/app/home");
      assert.equal(await other.text(), "Hello, guest", order);
    }
    assert.ok(built >= 3, `built ${built}`);
  });
}
