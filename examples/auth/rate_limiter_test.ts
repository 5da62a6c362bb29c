import { tooManyAttempts } from "./controllers/auth.ts";
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createKvRateLimiter } from "./rate_limiter.ts";
import { Client, read, testApp } from "./_test_app.ts";

const MINUTE = 60_000;

// Only Date is faked: Deno KV keeps its real timers.
function fakeDate() {
  return FakeTimers.withGlobal(globalThis).install({
    now: Date.UTC(2026, 0, 1),
    toFake: ["Date"],
  });
}

Deno.test("limiter: limit attempts, then refused until the window after the last one passes", async () => {
  const clock = fakeDate();
  const kv = await Deno.openKv(":memory:");
  try {
    const limiter = createKvRateLimiter({
      kv,
      limit: 5,
      windowMs: 15 * MINUTE,
    });
    for (let i = 0; i < 5; i++) {
      assert.equal(
        (await limiter.attempt("a")).allowed,
        true,
        `attempt ${i + 1}`,
      );
      clock.tick(MINUTE);
    }
    const refused = await limiter.attempt("a");
    assert.equal(refused.allowed, false);
    assert.equal(refused.retryAfterMs, 14 * MINUTE);
    assert.equal(
      (await limiter.attempt("b")).allowed,
      true,
      "keys are separate",
    );
    // A refused attempt does not move the window.
    clock.tick(14 * MINUTE - 1);
    assert.equal((await limiter.attempt("a")).allowed, false);
    clock.tick(1);
    assert.equal((await limiter.attempt("a")).allowed, true, "window over");
    await limiter.reset("a");
    for (let i = 0; i < 5; i++) {
      assert.equal((await limiter.attempt("a")).allowed, true);
    }
  } finally {
    kv.close();
    clock.uninstall();
  }
});

Deno.test("limiter: concurrent attempts are all counted", async () => {
  const kv = await Deno.openKv(":memory:");
  const limiter = createKvRateLimiter({ kv, limit: 5, windowMs: MINUTE });
  const results = await Promise.all(
    Array.from({ length: 12 }, () => limiter.attempt("k")),
  );
  assert.equal(results.filter((r) => r.allowed).length, 5);
  kv.close();
});

Deno.test("limiter: bad limits are refused", () => {
  assert.throws(
    () => createKvRateLimiter({ kv: {} as Deno.Kv, limit: 0, windowMs: 1 }),
    /limit must be >= 1/,
  );
});

Deno.test("login limiter: the sixth attempt is refused with 429 even with the right password", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    await new Client(app).register("ada@example.com");
    const client = new Client(app);
    for (let i = 0; i < 5; i++) {
      const response = await client.login("Ada@Example.com", "wrong password");
      assert.equal(response.status, 303, `attempt ${i + 1}`);
      clock.tick(MINUTE);
    }
    const refused = await client.login("ada@example.com", "correct horse");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), String(14 * 60));
    const page = await read(refused);
    // 14 minutes left: the page says so, as Retry-After does.
    assert.match(
      page.body,
      /Too many login attempts\. Try again in 14 minutes\./,
    );
    assert.equal((await client.get("/dashboard")).status, 302, "not signed in");
    // Other emails are not affected.
    assert.equal(
      (await new Client(app).login("x@example.com", "nope")).status,
      303,
    );

    // 15 minutes after the last counted attempt, the window opens again.
    clock.tick(14 * MINUTE - 1);
    assert.equal(
      (await client.login("ada@example.com", "correct horse")).status,
      429,
    );
    clock.tick(1);
    const ok = await client.login("ada@example.com", "correct horse");
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/dashboard");
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("login limiter: a successful login clears the counter", async () => {
  const { app, close } = await testApp();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  for (let i = 0; i < 4; i++) {
    await client.login("ada@example.com", "wrong password");
  }
  assert.equal(
    (await client.login("ada@example.com", "correct horse")).headers.get(
      "location",
    ),
    "/dashboard",
  );
  await client.post("/auth/logout");
  for (let i = 0; i < 5; i++) {
    assert.equal(
      (await client.login("ada@example.com", "wrong password")).status,
      303,
    );
  }
  assert.equal(
    (await client.login("ada@example.com", "wrong password")).status,
    429,
  );
  close();
});

Deno.test("the lockout message rounds the time left up to minutes", () => {
  assert.equal(
    tooManyAttempts(15 * MINUTE),
    "Too many login attempts. Try again in 15 minutes.",
  );
  assert.equal(
    tooManyAttempts(14 * MINUTE + 1),
    "Too many login attempts. Try again in 15 minutes.",
  );
  assert.equal(
    tooManyAttempts(MINUTE),
    "Too many login attempts. Try again in a minute.",
  );
  assert.equal(
    tooManyAttempts(1000),
    "Too many login attempts. Try again in a minute.",
  );
});
