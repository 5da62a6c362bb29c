import assert from "node:assert/strict";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { storageSuite } from "./_test_suite.ts";
import { app, Jar, send } from "./_test_app.ts";
import { createSigner } from "./_signer.ts";
import { fromBase64Url, toBase64Url } from "../runtime/base64.ts";

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
      fromBase64Url(value.slice(0, value.lastIndexOf("."))),
    ),
  );
  assert.deepEqual(payload.v, { user: "ada" });
  assert.ok(payload.e >= before + 60_000 && payload.e <= Date.now() + 60_000);
});

Deno.test("cookie storage: any text round-trips, and the cookie stays ASCII base64url", async () => {
  const storage = createCookieSessionStorage({
    cookie: { secrets: ["s".repeat(32)] },
  });
  const values = [
    "plain",
    "é ü ß",
    "日本語",
    "emoji 😀",
    "lone \ud800 surrogate",
    "\u007f\u0080\u2028\u2029",
    'quotes " \\ and \n newlines',
    "",
  ];
  const session = await storage.read(null);
  values.forEach((value, i) => session.set(`k${i}`, value));
  session.set("nested", { list: ["ö", 1, null], deep: { x: "ℵ" } });
  const header = (await storage.save(session))!;
  const pair = header.split(";")[0];
  assert.match(pair, /^__session=[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
  const read = await storage.read(pair);
  assert.equal(read.id, session.id);
  values.forEach((value, i) => assert.equal(read.get(`k${i}`), value));
  assert.deepEqual(read.get("nested"), {
    list: ["ö", 1, null],
    deep: { x: "ℵ" },
  });
});

Deno.test("cookie storage: reads cookies whose JSON is UTF-8 (the older encoding)", async () => {
  const secret = "s".repeat(32);
  const storage = createCookieSessionStorage({ cookie: { secrets: [secret] } });
  const record = {
    v: { name: "Zoë 😀" },
    e: Date.now() + 60_000,
    i: "ABCDEFGHIJKLMNOPQRSTUVWX",
  };
  const payload = toBase64Url(
    new TextEncoder().encode(JSON.stringify(record)),
  );
  const signed = await createSigner([secret]).sign(payload);
  const read = await storage.read(`__session=${signed}`);
  assert.equal(read.id, record.i);
  assert.equal(read.get("name"), "Zoë 😀");
});

Deno.test("cookie storage: setUser keeps the user id, not the address or user agent", async () => {
  const storage = createCookieSessionStorage({
    cookie: { secrets: ["s".repeat(32)] },
  });
  const fresh = await storage.read(null);
  fresh.setUser("42", { address: "203.0.113.7", userAgent: "x".repeat(500) });
  const setCookie = (await storage.save(fresh))!;
  assert.ok(setCookie.length < 400, `${setCookie.length} characters`);
  const loaded = await storage.read(setCookie.split(";")[0]);
  assert.equal(loaded.userId, "42");
  assert.equal("listUserSessions" in storage, false);
});
