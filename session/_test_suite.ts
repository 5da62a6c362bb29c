// The behavior every session storage must show, run through router.fetch.
// Each storage's test file calls `storageSuite` with a factory.

import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import type {
  SessionCookieOptions,
  SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import { app, createGate, Jar, send } from "./_test_app.ts";

/** A storage under test. */
export interface Backend {
  /**
   * Creates a storage with these cookie options. Storages made by one
   * backend share their data, as servers sharing a database do.
   */
  storage(cookie: SessionCookieOptions): SessionStorage;
  /** Whether old ids stop working after destroy / regenerateId(true). */
  revocable: boolean;
  /** Whether two storages from `storage()` see the same data. */
  shared: boolean;
}

const SECRET = "test-secret-0123456789abcdefghijklmnop";

/** Runs the storage behavior tests as steps of `t`. */
export async function storageSuite(
  t: Deno.TestContext,
  backend: Backend,
): Promise<void> {
  const cookie: SessionCookieOptions = { secrets: [SECRET], maxAge: 3600 };

  await t.step(
    "a new visitor gets no cookie until something is set",
    async () => {
      const router = app(backend.storage(cookie));
      const jar = new Jar();
      const { setCookie, body } = await send(router, jar, "GET", "/get/x");
      assert.equal(setCookie, undefined);
      assert.equal(body.value, null);
    },
  );

  await t.step("set, then read on the next request", async () => {
    const router = app(backend.storage(cookie));
    const jar = new Jar();
    const first = await send(router, jar, "POST", "/set/user/ada");
    assert.match(first.setCookie!, /^__session=[A-Za-z0-9_.-]+; /);
    assert.match(first.setCookie!, /; Max-Age=3600; /);
    assert.match(first.setCookie!, /; Path=\//);
    assert.match(first.setCookie!, /; HttpOnly/);
    assert.match(first.setCookie!, /; SameSite=Lax/);
    const second = await send(router, jar, "GET", "/get/user");
    assert.equal(second.body.value, "ada");
    assert.equal(second.body.id, first.body.id);
    // Only read: no Set-Cookie.
    assert.equal(second.setCookie, undefined);
    await send(router, jar, "POST", "/unset/user");
    assert.equal(
      (await send(router, jar, "GET", "/get/user")).body.value,
      null,
    );
  });

  await t.step(
    "a flash value is readable on the following request only",
    async () => {
      const router = app(backend.storage(cookie));
      const jar = new Jar();
      await send(router, jar, "POST", "/set/keep/1");
      const flashed = await send(router, jar, "POST", "/flash/error/bad");
      assert.equal(flashed.body.value, null, "not in the request that sets it");
      const next = await send(router, jar, "GET", "/get/error");
      assert.equal(next.body.value, "bad");
      assert.ok(next.setCookie, "the consumed flash is saved away");
      const after = await send(router, jar, "GET", "/get/error");
      assert.equal(after.body.value, null);
      assert.equal(
        (await send(router, jar, "GET", "/get/keep")).body.value,
        "1",
      );
    },
  );

  await t.step(
    "a tampered, forged or malformed cookie is a new session",
    async () => {
      const router = app(backend.storage(cookie));
      const jar = new Jar();
      const { body } = await send(router, jar, "POST", "/set/user/ada");
      const good = jar.cookie!;
      const value = good.slice("__session=".length);
      const dot = value.lastIndexOf(".");
      const flip = (c: string) => (c === "A" ? "B" : "A");
      const tampered = [
        // one character of the payload changed
        `__session=${flip(value[0])}${value.slice(1)}`,
        // one character of the signature changed
        `__session=${value.slice(0, dot + 1)}${flip(value[dot + 1])}${
          value.slice(dot + 2)
        }`,
        `__session=${value.slice(0, dot)}`,
        "__session=",
        "__session=a.b",
        `__session=${value}x`,
        '__session="unterminated',
        `__session=${value.slice(0, dot)}.${"A".repeat(43)}`,
      ];
      for (const forged of tampered) {
        jar.cookie = forged;
        const result = await send(router, jar, "GET", "/get/user");
        assert.equal(result.body.value, null, forged);
        assert.notEqual(result.body.id, body.id, forged);
      }
      // Signed with a secret the storage does not know.
      const other = app(
        backend.storage({
          ...cookie,
          secrets: ["other-secret-0123456789abcdefghijklmn"],
        }),
      );
      jar.cookie = good;
      assert.equal(
        (await send(other, jar, "GET", "/get/user")).body.value,
        null,
      );
      // A planted cookie before the real one does not hide it.
      jar.cookie = `${tampered[0]}; ${good}`;
      assert.equal(
        (await send(router, jar, "GET", "/get/user")).body.value,
        "ada",
      );
    },
  );

  await t.step(
    "junk cookies planted ahead of the real one do not hide it",
    async () => {
      const router = app(backend.storage(cookie));
      const jar = new Jar();
      await send(router, jar, "POST", "/set/user/ada");
      const good = jar.cookie!;
      const value = good.slice("__session=".length);
      const dot = value.lastIndexOf(".");
      // Well-formed values with a wrong signature (each costs an HMAC),
      // and malformed ones.
      const junk = (i: number) =>
        i % 3 === 0
          ? `__session=junk${i}`
          : `__session=${value.slice(0, dot)}.${
            String(i).padStart(43, i % 3 === 1 ? "A" : "_")
          }`;
      for (const count of [4, 5, 40, 179]) {
        const planted = Array.from({ length: count }, (_, i) => junk(i));
        jar.cookie = [...planted, good].join("; ");
        const read = await send(router, jar, "GET", "/get/user");
        assert.equal(read.body.value, "ada", `${count} junk cookies ahead`);
      }
      // Beyond what a browser keeps for one site, the rest is not read.
      jar.cookie = [...Array.from({ length: 180 }, (_, i) => junk(i)), good]
        .join("; ");
      assert.equal(
        (await send(router, jar, "GET", "/get/user")).body.value,
        null,
      );
    },
  );

  await t.step(
    "secret rotation: old cookies verify and are re-signed",
    async () => {
      const before = backend.storage({
        ...cookie,
        secrets: ["old-secret-0123456789abcdefghijklmnop"],
      });
      const jar = new Jar();
      await send(app(before), jar, "POST", "/set/user/ada");
      const oldCookie = jar.cookie;
      if (!backend.shared) return;
      const rotated = app(backend.storage({
        ...cookie,
        secrets: [
          "new-secret-0123456789abcdefghijklmnop",
          "old-secret-0123456789abcdefghijklmnop",
        ],
      }));
      const read = await send(rotated, jar, "GET", "/get/user");
      assert.equal(read.body.value, "ada");
      assert.ok(read.setCookie, "re-signed although nothing changed");
      assert.notEqual(jar.cookie, oldCookie);
      // The re-signed cookie verifies with the new secret alone.
      const newOnly = app(
        backend.storage({
          ...cookie,
          secrets: ["new-secret-0123456789abcdefghijklmnop"],
        }),
      );
      const after = await send(newOnly, jar, "GET", "/get/user");
      assert.equal(after.body.value, "ada");
      assert.equal(after.setCookie, undefined);
      // ... and the old cookie does not.
      jar.cookie = oldCookie;
      assert.equal(
        (await send(newOnly, jar, "GET", "/get/user")).body.value,
        null,
      );
    },
  );

  await t.step("regenerateId keeps the data under a new id", async () => {
    const router = app(backend.storage(cookie));
    for (const deleteOld of [true, false]) {
      const jar = new Jar();
      const first = await send(router, jar, "POST", "/set/user/ada");
      const oldCookie = jar.cookie;
      const regenerated = await send(
        router,
        jar,
        "POST",
        `/regenerate/${deleteOld}`,
      );
      assert.ok(regenerated.setCookie);
      assert.notEqual(regenerated.body.id, first.body.id);
      const read = await send(router, jar, "GET", "/get/user");
      assert.equal(read.body.value, "ada");
      assert.equal(read.body.id, regenerated.body.id);
      // The old id: gone with `true` (where the storage can revoke it).
      jar.cookie = oldCookie;
      const old = await send(router, jar, "GET", "/get/user");
      if (deleteOld && backend.revocable) {
        assert.equal(old.body.value, null);
        assert.notEqual(old.body.id, first.body.id);
      } else {
        assert.equal(old.body.value, "ada");
      }
    }
  });

  await t.step("destroy expires the cookie and deletes the data", async () => {
    const router = app(backend.storage(cookie));
    const jar = new Jar();
    const first = await send(router, jar, "POST", "/set/user/ada");
    const oldCookie = jar.cookie;
    const destroyed = await send(router, jar, "POST", "/destroy");
    assert.match(destroyed.setCookie!, /^__session=; Max-Age=0; Path=\/; /);
    assert.equal(jar.cookie, undefined);
    assert.equal(
      (await send(router, jar, "GET", "/get/user")).body.value,
      null,
    );
    if (backend.revocable) {
      jar.cookie = oldCookie;
      const replay = await send(router, jar, "GET", "/get/user");
      assert.equal(replay.body.value, null);
      assert.notEqual(replay.body.id, first.body.id);
    }
  });

  await t.step(
    "an expired session is a new one, even if the cookie is replayed",
    async () => {
      const clock = FakeTimers.install({ now: Date.now(), toFake: ["Date"] });
      try {
        const router = app(backend.storage({ ...cookie, maxAge: 60 }));
        const jar = new Jar();
        const first = await send(router, jar, "POST", "/set/user/ada");
        clock.tick(59_000);
        assert.equal(
          (await send(router, jar, "GET", "/get/user")).body.value,
          "ada",
        );
        clock.tick(2_000);
        const late = await send(router, jar, "GET", "/get/user");
        assert.equal(late.body.value, null);
        assert.notEqual(late.body.id, first.body.id);
      } finally {
        clock.uninstall();
      }
    },
  );

  await t.step("concurrent requests on one session", async () => {
    const router = app(backend.storage(cookie));
    const jar = new Jar();
    const base = await send(router, jar, "POST", "/set/base/0");
    const names = Array.from({ length: 8 }, (_, i) => `k${i}`);
    const results = await Promise.all(
      names.map((name) => {
        const own = new Jar();
        own.cookie = jar.cookie;
        return send(router, own, "POST", `/set/${name}/${name}`)
          .then((result) => ({ ...result, jar: own }));
      }),
    );
    for (const result of results) assert.equal(result.body.id, base.body.id);
    // Each response carries its own change and not the others' as loaded.
    for (const [i, result] of results.entries()) {
      const check = await send(
        router,
        result.jar,
        "GET",
        `/all?names=base,${names.join(",")}`,
      );
      assert.equal(check.body.values[names[i]], names[i]);
      assert.equal(check.body.values.base, "0");
      if (!backend.revocable) {
        // Cookie storage: each browser copy holds exactly its own write.
        assert.deepEqual(check.body.values, {
          base: "0",
          [names[i]]: names[i],
        });
      }
    }
    if (backend.revocable) {
      // Server-side storages merge: every change survives.
      const all = await send(router, jar, "GET", `/all?names=${names}`);
      assert.deepEqual(
        Object.keys(all.body.values).sort(),
        [...names].sort(),
      );
    }
  });

  if (backend.revocable) {
    await t.step("a save that raced another keeps both changes", async () => {
      const gate = createGate();
      const router = app(backend.storage(cookie), { a: gate });
      const jar = new Jar();
      await send(router, jar, "POST", "/set/base/0");
      const slow = send(router, jar, "POST", "/set/a/1?gate=a");
      await gate.loaded;
      await send(router, jar, "POST", "/set/b/2");
      gate.release();
      await slow;
      const all = await send(router, jar, "GET", "/all?names=base,a,b");
      assert.deepEqual(all.body.values, { base: "0", a: "1", b: "2" });
    });

    await t.step(
      "a session destroyed meanwhile is not brought back",
      async () => {
        const gate = createGate();
        const router = app(backend.storage(cookie), { a: gate });
        const jar = new Jar();
        await send(router, jar, "POST", "/set/user/ada");
        const oldCookie = jar.cookie;
        const slow = send(router, jar, "POST", "/set/cart/1?gate=a");
        await gate.loaded;
        const other = new Jar();
        other.cookie = oldCookie;
        await send(router, other, "POST", "/destroy");
        gate.release();
        const late = await slow;
        assert.equal(late.setCookie, undefined, "no cookie for a dead session");
        jar.cookie = oldCookie;
        const read = await send(router, jar, "GET", "/all?names=user,cart");
        assert.deepEqual(read.body.values, {});
      },
    );

    await t.step("an unknown, validly signed id is never adopted", async () => {
      // Same secret, other storage: a correctly signed id this one never issued.
      const foreign = createMemorySessionStorage({ cookie });
      const jar = new Jar();
      const minted = await send(app(foreign), jar, "POST", "/set/user/eve");
      const router = app(backend.storage(cookie));
      const read = await send(router, jar, "GET", "/get/user");
      assert.equal(read.body.value, null);
      assert.notEqual(read.body.id, minted.body.id);
      const written = await send(router, jar, "POST", "/set/user/ada");
      assert.notEqual(written.body.id, minted.body.id);
    });
  }
}
