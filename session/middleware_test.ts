import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";

const cookie = { secrets: ["secret".repeat(6)] };

Deno.test("a symbol key works, and other Set-Cookie headers are kept", async () => {
  const Key = Symbol("session");
  const router = createRouter({
    middleware: [session(Key, createCookieSessionStorage({ cookie }))],
  });
  router.get("/", (context) => {
    (context.get(Key) as Session).set("n", 1);
    const headers = new Headers();
    headers.append("Set-Cookie", "theme=dark; Path=/");
    headers.append("Set-Cookie", "lang=en; Path=/");
    return new Response("ok", { headers });
  });
  const response = await router.fetch(new Request("http://localhost/"));
  const cookies = response.headers.getSetCookie();
  assert.equal(cookies.length, 3);
  assert.equal(cookies[0], "theme=dark; Path=/");
  assert.equal(cookies[1], "lang=en; Path=/");
  assert.match(cookies[2], /^__session=/);
  await response.body?.cancel();
});

Deno.test("a response with immutable headers is copied, body and status kept", async () => {
  const Key = createContextKey<Session>();
  const router = createRouter({
    middleware: [session(Key, createCookieSessionStorage({ cookie }))],
  });
  router.get("/redirect", (context) => {
    context.get(Key)!.flash("notice", "moved");
    return Response.redirect("http://localhost/there", 303);
  });
  const response = await router.fetch(new Request("http://localhost/redirect"));
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("location"), "http://localhost/there");
  assert.match(response.headers.getSetCookie()[0], /^__session=/);
});

Deno.test("when the handler throws, nothing is saved", async () => {
  const Key = createContextKey<Session>();
  const saves: unknown[] = [];
  const storage = createMemorySessionStorage({ cookie });
  const router = createRouter({
    middleware: [session(Key, {
      read: (header) => storage.read(header),
      save: (current) => {
        saves.push(current);
        return storage.save(current);
      },
    })],
    onError: () => new Response("failed", { status: 500 }),
  });
  router.get("/", (context) => {
    context.get(Key)!.set("n", 1);
    throw new Error("boom");
  });
  const response = await router.fetch(new Request("http://localhost/"));
  assert.equal(response.status, 500);
  assert.deepEqual(response.headers.getSetCookie(), []);
  assert.equal(saves.length, 0);
  await response.body?.cancel();
});

Deno.test("session() checks its storage", () => {
  // @ts-expect-error: checking the run-time guard
  assert.throws(() => session(Symbol(), {}), TypeError);
});

Deno.test("cookie options: defaults, validation and warnings", async () => {
  const storage = createCookieSessionStorage({
    cookie: { secrets: ["s".repeat(32)] },
  });
  const current = await storage.read(null);
  current.set("n", 1);
  const header = (await storage.save(current))!;
  assert.match(header, /^__session=[^;]+; Path=\/; HttpOnly; SameSite=Lax$/);

  const named = createCookieSessionStorage({
    cookie: {
      name: "__Host-sid",
      secrets: ["s".repeat(32)],
      secure: true,
      sameSite: "strict",
      maxAge: 60,
      partitioned: true,
    },
  });
  const other = await named.read(null);
  other.set("n", 1);
  assert.match(
    (await named.save(other))!,
    /^__Host-sid=[^;]+; Max-Age=60; Path=\/; HttpOnly; Secure; SameSite=Strict; Partitioned$/,
  );

  const invalid: unknown[] = [
    {},
    { secrets: [] },
    { secrets: [""] },
    { secrets: "s" },
    { secrets: ["s".repeat(32)], name: "a b" },
    { secrets: ["s".repeat(32)], path: "/;x" },
    { secrets: ["s".repeat(32)], domain: "a.com;x" },
    { secrets: ["s".repeat(32)], maxAge: -1 },
    { secrets: ["s".repeat(32)], maxAge: Infinity },
    { secrets: ["s".repeat(32)], sameSite: "loose" },
    { secrets: ["s".repeat(32)], sameSite: "none" },
    { secrets: ["s".repeat(32)], partitioned: true },
    { secrets: ["s".repeat(32)], name: "__Secure-x" },
    {
      secrets: ["s".repeat(32)],
      name: "__Host-x",
      secure: true,
      domain: "a.com",
    },
    { secrets: ["s".repeat(32)], expires: new Date(NaN) },
  ];
  for (const options of invalid) {
    assert.throws(
      // @ts-expect-error: checking the run-time guard
      () => createCookieSessionStorage({ cookie: options }),
      TypeError,
      JSON.stringify(options),
    );
  }

  const warnings: unknown[] = [];
  const warn = console.warn;
  console.warn = (...args: unknown[]) => warnings.push(args.join(" "));
  try {
    createCookieSessionStorage({
      cookie: { secrets: ["s".repeat(32)], httpOnly: false },
    });
  } finally {
    console.warn = warn;
  }
  assert.equal(warnings.length, 1);
  assert.match(String(warnings[0]), /httpOnly: false/);
});

Deno.test("secrets shorter than 32 characters are a TypeError unless allowShortSecrets", async () => {
  for (
    const secrets of [["short"], ["x".repeat(31)], ["y".repeat(40), "old"]]
  ) {
    assert.throws(
      () => createCookieSessionStorage({ cookie: { secrets } }),
      (error: unknown) =>
        error instanceof TypeError &&
        /at least 32 are required/.test(error.message) &&
        /allowShortSecrets/.test(error.message),
      JSON.stringify(secrets),
    );
    assert.throws(
      () => createMemorySessionStorage({ cookie: { secrets } }),
      TypeError,
    );
  }
  createCookieSessionStorage({ cookie: { secrets: ["z".repeat(32)] } });
  const storage = createCookieSessionStorage({
    cookie: { secrets: ["s"], allowShortSecrets: true },
  });
  const session = await storage.read(null);
  session.set("a", 1);
  const header = await storage.save(session);
  const again = await storage.read(header!.split(";")[0]);
  assert.equal(again.get("a"), 1);
});

Deno.test("a missing or empty secret is named in the error", () => {
  const cases: [unknown, RegExp][] = [
    [
      undefined,
      /needs `secrets`: .*got undefined; is SESSION_SECRET exported\?/,
    ],
    ["s".repeat(40), /got a string; put it in an array: \[secret\]/],
    [[], /got an empty array/],
    [
      [undefined],
      /^Session cookie secrets\[0\] is undefined: is SESSION_SECRET exported\?/,
    ],
    [
      ["s".repeat(32), ""],
      /^Session cookie secrets\[1\] is empty: is SESSION_SECRET set\?/,
    ],
    [
      ["s".repeat(32), 42],
      /^Session cookie secrets\[1\] is a number, not a string/,
    ],
  ];
  for (const [secrets, message] of cases) {
    assert.throws(
      // @ts-expect-error: checking the run-time guard
      () => createCookieSessionStorage({ cookie: { secrets } }),
      (error: unknown) =>
        error instanceof TypeError && message.test(error.message),
      String(secrets),
    );
  }
  // The value of a secret never appears in the message.
  assert.throws(
    // @ts-expect-error: checking the run-time guard
    () => createMemorySessionStorage({ cookie: { secrets: "hunter2-secret" } }),
    (error: unknown) =>
      error instanceof Error && !error.message.includes("hunter2"),
  );
});

Deno.test("the short-secret error gives the one command that makes a secret", () => {
  assert.throws(
    () =>
      createCookieSessionStorage({
        cookie: { secrets: ["s".repeat(32), "short"] },
      }),
    (error: unknown) =>
      error instanceof TypeError &&
      error.message.includes("secrets[1] has 5 characters") &&
      error.message.includes(
        'deno eval "console.log(crypto.randomUUID() + crypto.randomUUID())"',
      ) && !error.message.includes("openssl"),
  );
});
