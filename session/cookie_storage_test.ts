import assert from "node:assert/strict";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { storageSuite } from "./_test_suite.ts";
import { app, Jar, send } from "./_test_app.ts";

Deno.test("cookie storage", async (t) => {
  await storageSuite(t, {
    storage: (cookie) => createCookieSessionStorage({ cookie }),
    revocable: false,
    shared: true,
  });
});

Deno.test("cookie storage: save over 4096 bytes throws, naming the size", async () => {
  const storage = createCookieSessionStorage({
    cookie: { secrets: ["s".repeat(32)] },
  });
  const session = await storage.read(null);
  session.set("big", "x".repeat(2500));
  const header = await storage.save(session);
  assert.ok(header !== null && header.length <= 4096);
  session.set("big", "x".repeat(4000));
  await assert.rejects(
    () => storage.save(session),
    (error: Error) =>
      error instanceof RangeError &&
      /is \d{4} bytes, over the 4096-byte limit/.test(error.message),
  );
  // Through the router: a 500, and no half-written cookie.
  const router = app(storage);
  const jar = new Jar();
  const response = await router.fetch(
    new Request(`http://localhost/set/big/${"y".repeat(5000)}`, {
      method: "POST",
    }),
  );
  assert.equal(response.status, 500);
  assert.deepEqual(response.headers.getSetCookie(), []);
  await response.body?.cancel();
  assert.equal(jar.cookie, undefined);
});

Deno.test("cookie storage: the payload is signed, not hidden, and carries its expiry", async () => {
  const storage = createCookieSessionStorage({
    cookie: { secrets: ["s".repeat(32)], maxAge: 60 },
  });
  const router = app(storage);
  const jar = new Jar();
  const before = Date.now();
  await send(router, jar, "POST", "/set/user/ada");
  const value = jar.cookie!.slice("__session=".length);
  const payload = JSON.parse(
    new TextDecoder().decode(
      Uint8Array.fromBase64(value.slice(0, value.lastIndexOf(".")), {
        alphabet: "base64url",
      }),
    ),
  );
  assert.deepEqual(payload.v, { user: "ada" });
  assert.ok(payload.e >= before + 60_000 && payload.e <= Date.now() + 60_000);
});
