// main.ts as users run it: configuration from the environment.
import assert from "node:assert/strict";
import { runMain, startMain } from "./_test_server.ts";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";

Deno.test("production without SESSION_SECRET refuses to start with a clear message", async () => {
  const { code, output } = await runMain({ DENO_ENV: "production" });
  assert.equal(code, 1);
  assert.match(
    output,
    /Cannot start: SESSION_SECRET is required when DENO_ENV=production/,
  );
});

Deno.test("a short SESSION_SECRET or unknown SESSION_STORAGE refuses to start", async () => {
  const short = await runMain({ SESSION_SECRET: "short" });
  assert.equal(short.code, 1);
  assert.match(short.output, /at least 32/);
  const storage = await runMain({ SESSION_STORAGE: "disk" });
  assert.equal(storage.code, 1);
  assert.match(
    storage.output,
    /SESSION_STORAGE must be one of kv, cookie, redis/,
  );
});

Deno.test("ADMIN_PASSWORD shorter than 8 characters refuses to start, stating the rule", async () => {
  const { code, output } = await runMain({
    ADMIN_EMAIL: "root@example.com",
    ADMIN_PASSWORD: "short",
  });
  assert.equal(code, 1);
  assert.match(
    output,
    /Cannot start: ADMIN_PASSWORD has 5 characters; a password needs at least 8/,
  );
  const long = await runMain({
    ADMIN_EMAIL: "root@example.com",
    ADMIN_PASSWORD: "é".repeat(37),
  });
  assert.equal(long.code, 1);
  assert.match(long.output, /longer than 72 bytes/);
});

Deno.test("the production secret error suggests the one way to make a secret", async () => {
  const { output } = await runMain({ DENO_ENV: "production" });
  assert.ok(
    output.includes(
      `deno eval "console.log(crypto.randomUUID() + crypto.randomUUID())"`,
    ),
    output,
  );
});

async function login(url: string, email: string, password: string) {
  const response = await fetch(`${url}/auth/login`, {
    method: "POST",
    body: new URLSearchParams({ email, password }),
    redirect: "manual",
  });
  await response.body?.cancel();
  return response;
}

Deno.test("development: a generated secret is kept in KV, so a restart keeps sessions; ADMIN_EMAIL makes an admin", async () => {
  const dir = await Deno.makeTempDir({ prefix: "auth-main-" });
  const env = {
    DENO_KV_PATH: `${dir}/data/auth.sqlite`,
    ADMIN_EMAIL: "root@example.com",
    ADMIN_PASSWORD: "root-password",
  };
  const first = await startMain(env);
  try {
    assert.match(first.output(), /Warning: SESSION_SECRET is not set/);
    assert.match(first.output(), /^Admin root@example\.com created\.$/m);
    const response = await login(
      first.url,
      "root@example.com",
      "root-password",
    );
    assert.equal(response.headers.get("location"), "/dashboard");
    const cookie = response.headers.get("set-cookie")!.split(";")[0];
    assert.match(response.headers.get("set-cookie")!, /HttpOnly/);
    assert.match(response.headers.get("set-cookie")!, /SameSite=Lax/i);
    assert.doesNotMatch(first.output(), /root-password/, "no password in logs");
    await first.stop();

    const second = await startMain({ DENO_KV_PATH: env.DENO_KV_PATH });
    try {
      // Without ADMIN_EMAIL, it names the admin that is there.
      assert.match(second.output(), /^Admin: root@example\.com\.$/m);
      assert.doesNotMatch(second.output(), /No admin/);
      const register = await fetch(`${second.url}/auth/register`, {
        method: "POST",
        body: new URLSearchParams({
          email: "ada@example.com",
          name: "Ada",
          password: "longenough",
        }),
        redirect: "manual",
      });
      await register.body?.cancel();
      assert.equal(register.status, 303);
      const page = await fetch(`${second.url}/admin/users`, {
        headers: { cookie },
        redirect: "manual",
      });
      assert.equal(page.status, 200);
      assert.match(await page.text(), /root@example\.com/);
    } finally {
      await second.stop();
    }
    for (
      const [email, line] of [
        ["root@example.com", /^Admin root@example\.com already there/m],
        [
          "ada@example.com",
          /^ADMIN_EMAIL ada@example\.com exists with role user, left unchanged\.$/m,
        ],
      ] as const
    ) {
      const third = await startMain({
        DENO_KV_PATH: env.DENO_KV_PATH,
        ADMIN_EMAIL: email,
        ADMIN_PASSWORD: "another-password",
      });
      await third.stop();
      assert.match(third.output(), line);
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("production: the cookie is __Host-session, Secure, Path=/, no Domain", async () => {
  const dir = await Deno.makeTempDir({ prefix: "auth-main-" });
  const server = await startMain({
    DENO_KV_PATH: `${dir}/auth.sqlite`,
    DENO_ENV: "production",
    APP_URL: "https://example.com",
    SESSION_SECRET: "a".repeat(40) + ",older-secret-but-still-32-chars-long",
  });
  try {
    const response = await fetch(`${server.url}/auth/login`, {
      method: "POST",
      body: new URLSearchParams({ email: "x@example.com", password: "y" }),
      redirect: "manual",
    });
    await response.body?.cancel();
    const cookie = response.headers.get("set-cookie")!;
    assert.match(cookie, /^__Host-session=/);
    assert.match(cookie, /; Secure/);
    assert.match(cookie, /; Path=\/(;|$)/);
    assert.doesNotMatch(cookie, /Domain=/i);
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("SESSION_STORAGE=redis: sessions live in a real redis-server", async (t) => {
  const path = await redisServerOrSkip();
  if (path === undefined) return;
  const redis = await startRedis(path);
  const dir = await Deno.makeTempDir({ prefix: "auth-main-" });
  const server = await startMain({
    DENO_KV_PATH: `${dir}/auth.sqlite`,
    SESSION_STORAGE: "redis",
    REDIS_URL: redis.url,
    ADMIN_EMAIL: "root@example.com",
    ADMIN_PASSWORD: "root-password",
  });
  try {
    const response = await login(
      server.url,
      "root@example.com",
      "root-password",
    );
    assert.equal(response.headers.get("location"), "/dashboard");
    const cookie = response.headers.get("set-cookie")!.split(";")[0];
    const page = await fetch(`${server.url}/dashboard`, {
      headers: { cookie },
    });
    assert.equal(page.status, 200);
    await page.body?.cancel();
    await t.step("the session is a key in Redis", async () => {
      const keys = await new Deno.Command("redis-cli", {
        args: ["-u", redis.url, "--scan", "--pattern", "session:*"],
      }).output().catch(() => undefined);
      if (keys === undefined) return; // redis-cli is not installed
      // One session; the devices index of its user (`session:user:<id>`)
      // is beside it.
      const sessions = new TextDecoder().decode(keys.stdout).trim().split("\n")
        .filter((key) => !key.startsWith("session:user:"));
      assert.equal(sessions.length, 1, sessions.join(" "));
    });
    await t.step("the login limits count in Redis, not in KV", async () => {
      const wrong = await login(server.url, "nobody@example.com", "wrong-pw");
      assert.equal(wrong.status, 303);
      const kv = await Deno.openKv(`${dir}/auth.sqlite`);
      try {
        for await (const entry of kv.list({ prefix: ["rate_limit"] })) {
          assert.fail(`a limiter entry in KV: ${String(entry.key)}`);
        }
      } finally {
        kv.close();
      }
      const keys = await new Deno.Command("redis-cli", {
        args: ["-u", redis.url, "--scan", "--pattern", "rate_limit:*"],
      }).output().catch(() => undefined);
      if (keys === undefined) return; // redis-cli is not installed
      assert.deepEqual(
        new TextDecoder().decode(keys.stdout).trim().split("\n").sort(),
        [
          "rate_limit:login-address:127.0.0.1",
          "rate_limit:login-email:nobody@example.com",
        ],
      );
    });
  } finally {
    await server.stop();
    await redis.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
