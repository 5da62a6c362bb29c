// The behavior every storage that lists sessions by user must show
// (memory, Deno KV, Redis one node and cluster), through router.fetch.
// Each storage's test file calls `userSessionSuite` with a factory.

import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  type Session,
  session,
  type SessionCookieOptions,
} from "@fetchkit/toolkit/session-middleware";
import type { UserSessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { Jar } from "./_test_app.ts";

/** A storage under test. */
export interface UserBackend {
  /** A storage; storages of one backend share their data. */
  storage(
    cookie: SessionCookieOptions,
    options?: { maxSessionsPerUser?: number; lastSeenIntervalMs?: number },
  ): UserSessionStorage;
}

const SECRET = "test-secret-0123456789abcdefghijklmnop";

/** An app: sign-in, who am I, sign-out, and the devices page's actions. */
function usersApp(storage: UserSessionStorage) {
  const Key = createContextKey<Session>();
  const router = createRouter({
    middleware: [session(Key, storage)],
    onError(error) {
      return new Response(String(error), {
        status: (error as { status?: number }).status ?? 500,
      });
    },
  });
  router.post("/login/:user", (context) => {
    const current = context.get(Key)!;
    current.regenerateId(true);
    current.set("name", context.params.user!);
    current.setUser(context.params.user!, {
      address: context.request.headers.get("x-address") ?? undefined,
      userAgent: context.request.headers.get("user-agent") ?? undefined,
    });
    return Response.json({ id: current.id });
  });
  router.get("/me", (context) => {
    const current = context.get(Key)!;
    return Response.json({
      id: current.id,
      user: current.userId ?? null,
      name: current.get("name") ?? null,
    });
  });
  router.post("/regenerate", (context) => {
    const current = context.get(Key)!;
    current.regenerateId(true);
    return Response.json({ id: current.id });
  });
  router.post("/signout", (context) => {
    // A sign-out that keeps a guest session (for a flash).
    const current = context.get(Key)!;
    current.regenerateId(true);
    current.unsetUser();
    current.set("name", "guest");
    return Response.json({ id: current.id });
  });
  router.post("/logout", (context) => {
    context.get(Key)!.destroy();
    return Response.json({});
  });
  router.post("/others", async (context) => {
    const current = context.get(Key)!;
    const ended = await storage.destroyUserSessions(current.userId!, {
      except: current.id,
    });
    return Response.json({ ended });
  });
  router.delete("/sessions/:id", async (context) => {
    const current = context.get(Key)!;
    const ended = await storage.destroyUserSession(
      current.userId!,
      context.params.id!,
    );
    return Response.json({ ended });
  });
  return router;
}

type App = ReturnType<typeof usersApp>;

/** Sends a request with the jar's cookie; the JSON body. */
async function call(
  router: App,
  jar: Jar,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const response = await router.fetch(
    new Request(`http://localhost${path}`, {
      method,
      headers: { ...jar.headers() as Record<string, string>, ...headers },
    }),
  );
  jar.take(response);
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(`${method} ${path}: ${response.status} ${text}`);
  }
  return JSON.parse(text);
}

function userName(): string {
  return `user-${crypto.randomUUID()}`;
}

/** Runs the sessions-by-user tests as steps of `t`. */
export async function userSessionSuite(
  t: Deno.TestContext,
  backend: UserBackend,
): Promise<void> {
  const cookie: SessionCookieOptions = { secrets: [SECRET], maxAge: 3600 };

  await t.step("each sign-in is listed with its device", async () => {
    const storage = backend.storage(cookie);
    const router = usersApp(storage);
    const user = userName();
    const before = Date.now();
    const laptop = new Jar();
    const phone = new Jar();
    const a = await call(router, laptop, "POST", `/login/${user}`, {
      "user-agent": "Firefox/130",
      "x-address": "203.0.113.7",
    });
    const b = await call(router, phone, "POST", `/login/${user}`, {
      "user-agent": "Safari/17",
      "x-address": "198.51.100.2",
    });
    const list = await storage.listUserSessions(user);
    assert.equal(list.length, 2);
    const byId = new Map(list.map((entry) => [entry.id, entry]));
    assert.equal(byId.get(a.id)?.userAgent, "Firefox/130");
    assert.equal(byId.get(a.id)?.address, "203.0.113.7");
    assert.equal(byId.get(b.id)?.userAgent, "Safari/17");
    for (const entry of list) {
      assert.ok(entry.createdAt.getTime() >= before);
      assert.ok(entry.lastSeenAt.getTime() >= entry.createdAt.getTime());
      assert.ok(entry.expiresAt.getTime() > Date.now() + 3500_000);
    }
    assert.deepEqual(await storage.listUserSessions(userName()), []);
    assert.equal((await call(router, laptop, "GET", "/me")).user, user);
  });

  await t.step(
    "a session ended from another device is refused at once",
    async () => {
      // Two servers sharing the store, as in production.
      const storage = backend.storage(cookie);
      const router = usersApp(storage);
      const other = usersApp(backend.storage(cookie));
      const user = userName();
      const stolen = new Jar();
      const mine = new Jar();
      const victim = await call(router, stolen, "POST", `/login/${user}`);
      await call(router, mine, "POST", `/login/${user}`);
      assert.equal((await call(other, stolen, "GET", "/me")).user, user);
      const ended = await call(
        router,
        mine,
        "DELETE",
        `/sessions/${victim.id}`,
      );
      assert.equal(ended.ended, true);
      for (const server of [router, other]) {
        const me = await call(server, stolen, "GET", "/me");
        assert.equal(me.user, null);
        assert.equal(me.name, null);
        assert.notEqual(me.id, victim.id);
      }
      assert.equal((await storage.listUserSessions(user)).length, 1);
    },
  );

  await t.step("sign out all other devices keeps this one", async () => {
    const storage = backend.storage(cookie);
    const router = usersApp(storage);
    const user = userName();
    const jars = [new Jar(), new Jar(), new Jar()];
    const ids = [];
    for (const jar of jars) {
      ids.push((await call(router, jar, "POST", `/login/${user}`)).id);
    }
    assert.equal((await call(router, jars[0], "POST", "/others")).ended, 2);
    assert.deepEqual(
      (await storage.listUserSessions(user)).map((entry) => entry.id),
      [ids[0]],
    );
    assert.equal((await call(router, jars[0], "GET", "/me")).user, user);
    assert.equal((await call(router, jars[1], "GET", "/me")).user, null);
    assert.equal((await call(router, jars[2], "GET", "/me")).user, null);
    // Everywhere (after a password change): none left.
    assert.equal(await storage.destroyUserSessions(user), 1);
    assert.equal((await call(router, jars[0], "GET", "/me")).user, null);
    assert.deepEqual(await storage.listUserSessions(user), []);
  });

  await t.step("another user's session cannot be ended by its id", async () => {
    const storage = backend.storage(cookie);
    const router = usersApp(storage);
    const alice = userName();
    const mallory = userName();
    const aliceJar = new Jar();
    const malloryJar = new Jar();
    const target = await call(router, aliceJar, "POST", `/login/${alice}`);
    await call(router, malloryJar, "POST", `/login/${mallory}`);
    const ended = await call(
      router,
      malloryJar,
      "DELETE",
      `/sessions/${target.id}`,
    );
    assert.equal(ended.ended, false);
    assert.equal((await call(router, aliceJar, "GET", "/me")).user, alice);
  });

  await t.step("sign-out and regenerateId keep the index right", async () => {
    const storage = backend.storage(cookie);
    const router = usersApp(storage);
    const user = userName();
    const jar = new Jar();
    await call(router, jar, "POST", `/login/${user}`, {
      "user-agent": "Edge",
    });
    const [first] = await storage.listUserSessions(user);
    const moved = await call(router, jar, "POST", "/regenerate");
    const list = await storage.listUserSessions(user);
    assert.deepEqual(list.map((entry) => entry.id), [moved.id]);
    assert.equal(list[0].createdAt.getTime(), first.createdAt.getTime());
    assert.equal(list[0].userAgent, "Edge");
    await call(router, jar, "POST", "/logout");
    assert.deepEqual(await storage.listUserSessions(user), []);
  });

  await t.step(
    "unsetUser(): a sign-out that keeps a guest session leaves the list",
    async () => {
      const storage = backend.storage(cookie);
      const router = usersApp(storage);
      const user = userName();
      const jar = new Jar();
      await call(router, jar, "POST", `/login/${user}`);
      assert.equal((await storage.listUserSessions(user)).length, 1);
      const guest = await call(router, jar, "POST", "/signout");
      assert.deepEqual(await storage.listUserSessions(user), []);
      const me = await call(router, jar, "GET", "/me");
      assert.deepEqual(me, { id: guest.id, user: null, name: "guest" });
      // Signing in again lists it again.
      await call(router, jar, "POST", `/login/${user}`);
      assert.equal((await storage.listUserSessions(user)).length, 1);
    },
  );

  await t.step(
    "at most maxSessionsPerUser: the oldest sign-in is ended",
    async () => {
      const storage = backend.storage(cookie, { maxSessionsPerUser: 3 });
      const router = usersApp(storage);
      const user = userName();
      const jars = [new Jar(), new Jar(), new Jar(), new Jar()];
      const ids: string[] = [];
      for (const jar of jars) {
        ids.push((await call(router, jar, "POST", `/login/${user}`)).id);
        // Distinct creation times.
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
      const list = await storage.listUserSessions(user);
      assert.deepEqual(
        list.map((entry) => entry.id).sort(),
        ids.slice(1).sort(),
      );
      // The evicted session is signed out, not only unlisted.
      assert.equal((await call(router, jars[0], "GET", "/me")).user, null);
      assert.equal((await call(router, jars[1], "GET", "/me")).user, user);
    },
  );

  await t.step("a read after lastSeenIntervalMs moves lastSeenAt", async () => {
    const storage = backend.storage(cookie, { lastSeenIntervalMs: 20 });
    const router = usersApp(storage);
    const user = userName();
    const jar = new Jar();
    await call(router, jar, "POST", `/login/${user}`);
    const [before] = await storage.listUserSessions(user);
    await new Promise((resolve) => setTimeout(resolve, 40));
    await call(router, jar, "GET", "/me");
    const [after] = await storage.listUserSessions(user);
    assert.ok(
      after.lastSeenAt.getTime() > before.lastSeenAt.getTime(),
      `${after.lastSeenAt.toISOString()} > ${before.lastSeenAt.toISOString()}`,
    );
    assert.equal(after.createdAt.getTime(), before.createdAt.getTime());
  });

  await t.step(
    "setUser: checked, idempotent, and a new user moves the session",
    async () => {
      const storage = backend.storage(cookie);
      const first = userName();
      const second = userName();
      const fresh = await storage.read(null);
      assert.throws(() => fresh.setUser(""), TypeError);
      assert.throws(
        () => fresh.setUser("x".repeat(201)),
        /at most 200 characters/,
      );
      fresh.setUser(first, { userAgent: "A" });
      const setCookie = await storage.save(fresh);
      const header = setCookie!.split(";")[0];
      const [before] = await storage.listUserSessions(first);
      await new Promise((resolve) => setTimeout(resolve, 3));
      const again = await storage.read(header);
      assert.equal(again.userId, first);
      again.setUser(first, { userAgent: "B" });
      assert.equal(again.dirty, false, "the same user again changes nothing");
      again.setUser(second, { userAgent: "C" });
      await storage.save(again);
      assert.deepEqual(await storage.listUserSessions(first), []);
      const [moved] = await storage.listUserSessions(second);
      assert.equal(moved.id, before.id);
      assert.equal(moved.userAgent, "C");
      assert.ok(moved.createdAt.getTime() > before.createdAt.getTime());
    },
  );

  await t.step("expired sessions drop out of the list", async () => {
    const storage = backend.storage({ secrets: [SECRET], maxAge: 1 });
    const router = usersApp(storage);
    const user = userName();
    await call(router, new Jar(), "POST", `/login/${user}`);
    assert.equal((await storage.listUserSessions(user)).length, 1);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    assert.deepEqual(await storage.listUserSessions(user), []);
  });
}
