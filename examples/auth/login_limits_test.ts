// The login limits on rateLimit(): 5 per email (a lockout, forgotten 15
// minutes after the last counted attempt) and 100 failed logins per client
// address per hour, on the app's KV (shared by apps on one KV file).
import { tooManyAttempts } from "./controllers/auth.ts";
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { Client, read, testApp } from "./_test_app.ts";
import { ADDRESS_LIMIT, LOGIN_LIMIT } from "./login_limits.ts";
import { ConfigError, loadConfig } from "./config.ts";

const MINUTE = 60_000;

// Only Date is faked: Deno KV keeps its real timers.
function fakeDate() {
  return FakeTimers.withGlobal(globalThis).install({
    now: Date.UTC(2026, 0, 1),
    toFake: ["Date"],
  });
}

Deno.test("login limit per email: five attempts, the sixth refused with 429 (even with the right password) for 15 minutes after the fifth", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    await new Client(app).register("ada@example.com");
    const client = new Client(app);
    for (let i = 0; i < LOGIN_LIMIT; i++) {
      const response = await client.login("Ada@Example.com", "wrong password");
      assert.equal(response.status, 303, `attempt ${i + 1}`);
      assert.match(
        response.headers.get("ratelimit") ?? "",
        new RegExp(`"login-email";r=${LOGIN_LIMIT - 1 - i};t=900`),
      );
    }
    const refused = await client.login("ada@example.com", "correct horse");
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), String(15 * 60));
    const page = await read(refused);
    assert.match(
      page.body,
      /Too many login attempts\. Try again in 15 minutes\./,
    );
    assert.match(page.body, /value="ada@example\.com"/, "the email is kept");
    assert.match(page.body, /<form method="post"/, "the login page");
    assert.equal((await client.get("/dashboard")).status, 302, "not signed in");
    // Other emails are not affected.
    assert.equal(
      (await new Client(app).login("x@example.com", "nope")).status,
      303,
    );

    // Still refused all along the 15 minutes (one attempt every 3 minutes
    // would come back under a token bucket); the time left shrinks.
    for (let minute = 3; minute < 15; minute += 3) {
      clock.tick(3 * MINUTE);
      const again = await client.login("ada@example.com", "correct horse");
      assert.equal(again.status, 429, `${minute} minutes on`);
      assert.equal(
        again.headers.get("retry-after"),
        String((15 - minute) * 60),
      );
      await again.body?.cancel();
    }
    // A refused attempt is not counted: hammering does not push it back.
    clock.tick(3 * MINUTE - 1000);
    const last = await read(
      await client.login("ada@example.com", "correct horse"),
    );
    assert.equal(last.status, 429);
    assert.match(last.body, /Try again in a minute\./);
    clock.tick(1000);
    const ok = await client.login("ada@example.com", "correct horse");
    assert.equal(ok.status, 303);
    assert.equal(ok.headers.get("location"), "/dashboard");
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("login limit per email: the 15 minutes run from the last counted attempt", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const client = new Client(app);
    const attempt = () => client.login("admin@example.com", "wrong");
    // Four attempts, ten minutes apart: none is forgotten, each starts
    // the 15 minutes again.
    for (let i = 0; i < 4; i++) {
      assert.equal((await attempt()).status, 303, `attempt ${i + 1}`);
      clock.tick(10 * MINUTE);
    }
    assert.equal((await attempt()).status, 303, "the fifth");
    clock.tick(14 * MINUTE);
    const refused = await attempt();
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), "60");
    clock.tick(MINUTE);
    const back = await attempt();
    assert.equal(back.status, 303);
    assert.match(back.headers.get("ratelimit") ?? "", /"login-email";r=4;/);
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("login limit per email: a successful login clears the count", async () => {
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

Deno.test("login limit per address: 200 users signing in correctly from one address within a minute all get in", async () => {
  const { app, close } = await testApp();
  try {
    const emails = Array.from({ length: 200 }, (_, i) => `u${i}@office.test`);
    for (const email of emails) {
      const registered = await new Client(app).register(email);
      assert.equal(registered.headers.get("location"), "/dashboard");
    }
    const started = Date.now();
    for (const [i, email] of emails.entries()) {
      const office = new Client(app, "198.51.100.200");
      const response = await office.login(email, "correct horse");
      assert.equal(response.status, 303, `user ${i + 1}`);
      assert.equal(response.headers.get("location"), "/dashboard");
      // Nothing of the address's budget is used.
      assert.match(
        response.headers.get("ratelimit") ?? "",
        new RegExp(`"login-address";r=${ADDRESS_LIMIT};`),
      );
    }
    assert.ok(Date.now() - started < 60_000, "within a minute");
    // A few mistypes among them count, and only those.
    const office = new Client(app, "198.51.100.200");
    await office.login("u1@office.test", "typo");
    const next = await office.login("u2@office.test", "correct horse");
    assert.match(
      next.headers.get("ratelimit") ?? "",
      new RegExp(`"login-address";r=${ADDRESS_LIMIT - 1};`),
    );
  } finally {
    close();
  }
});

Deno.test("login limit per address: failures over many emails are stopped after the limit, and a success in between resets nothing", async () => {
  const { app, close } = await testApp();
  await new Client(app).register("ada@example.com");
  await new Client(app).register("eve@example.com", "eve's password");
  const sprayer = new Client(app, "203.0.113.7");
  for (let i = 0; i < ADDRESS_LIMIT; i++) {
    const response = await sprayer.login(`user${i}@example.com`, "Summer2026!");
    assert.equal(response.status, 303, `attempt ${i + 1}`);
    assert.equal(response.headers.get("location"), "/auth/login");
    if (i === ADDRESS_LIMIT - 2) {
      // The sprayer holds one real account: signing in to it gives back
      // that attempt only.
      const own = await new Client(app, "203.0.113.7").login(
        "eve@example.com",
        "eve's password",
      );
      assert.equal(own.headers.get("location"), "/dashboard");
    }
  }
  const refused = await read(
    await sprayer.login("ada@example.com", "correct horse"),
  );
  assert.equal(refused.status, 429);
  assert.match(
    refused.body,
    /Too many login attempts\. Try again in a minute\./,
  );
  // Another client, at another address, signs in as Ada.
  const ada = await new Client(app, "198.51.100.1").login(
    "ada@example.com",
    "correct horse",
  );
  assert.equal(ada.headers.get("location"), "/dashboard");
  // An IPv6 client is counted by its /64: a new address in it does not help.
  const v6 = (n: number) => new Client(app, `2001:db8:1:2::${n.toString(16)}`);
  for (let i = 0; i < ADDRESS_LIMIT; i++) {
    await (await v6(i + 1).login(`v${i}@example.com`, "x")).body?.cancel();
  }
  assert.equal((await v6(999).login("w@example.com", "x")).status, 429);
  close();
});

Deno.test("login limits are shared by two apps on one KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "auth-limits-" });
  const one = await testApp({ kv: await Deno.openKv(`${dir}/auth.sqlite`) });
  const two = await testApp({ kv: await Deno.openKv(`${dir}/auth.sqlite`) });
  try {
    // One browser whose requests a load balancer sends to either server.
    const a = new Client(one.app, "192.0.2.10");
    const b = new Client(two.app, "192.0.2.10");
    for (let i = 0; i < LOGIN_LIMIT; i++) {
      const client = i % 2 === 0 ? a : b;
      const response = await client.login("admin@example.com", "wrong");
      assert.equal(response.status, 303, `attempt ${i + 1}`);
    }
    assert.equal((await b.login("admin@example.com", "wrong")).status, 429);
    assert.equal((await a.login("admin@example.com", "wrong")).status, 429);
  } finally {
    one.close();
    two.close();
    await Deno.remove(dir, { recursive: true });
  }
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

Deno.test("LOGIN_ADDRESS_LIMIT sets the per-address limit; a bad value refuses to start", async () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(loadConfig(env({})).loginAddressLimit, ADDRESS_LIMIT);
  assert.equal(
    loadConfig(env({ LOGIN_ADDRESS_LIMIT: "500" })).loginAddressLimit,
    500,
  );
  for (const bad of ["0", "-1", "2.5", "many", ""]) {
    assert.throws(
      () => loadConfig(env({ LOGIN_ADDRESS_LIMIT: bad })),
      (error: Error) =>
        error instanceof ConfigError &&
        error.message.includes("LOGIN_ADDRESS_LIMIT must be a whole number"),
      bad,
    );
  }
  const { app, close } = await testApp({ loginAddressLimit: 2 });
  const client = new Client(app);
  assert.equal((await client.login("a@example.com", "x")).status, 303);
  assert.equal((await client.login("b@example.com", "x")).status, 303);
  assert.equal((await client.login("c@example.com", "x")).status, 429);
  close();
});
