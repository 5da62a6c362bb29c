// The app when Redis (sessions and login limits) goes down mid-flight: a
// login whose session read needed no Redis (or beat the outage) meets it
// in the login limiter, and gets a 503 page with Retry-After, not a 500.
import assert from "node:assert/strict";
import { createClient } from "redis";
import { createRedisRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";
import { createApp } from "./app.ts";
import { createSessionStorage } from "./sessions.ts";
import { Client, SECRET } from "./_test_app.ts";

const redisServer = await redisServerOrSkip();

Deno.test({
  name:
    "Redis down after the session read: the login limiter's outage is a 503 page with Retry-After, not a 500",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const redis = await startRedis(redisServer!);
    const client = createClient({ url: redis.url }).on("error", () => {});
    await client.connect();
    const kv = await Deno.openKv(":memory:");
    const errors: unknown[] = [];
    const error = console.error;
    try {
      const app = await createApp({
        kv,
        sessions: createSessionStorage({
          kind: "redis",
          kv,
          secrets: [SECRET],
          secure: false,
          redis: client,
        }),
        rateLimitStore: createRedisRateLimitStore({ client, timeout: 500 }),
        bcryptCost: 4,
        log: null,
      });
      const browser = new Client(app);
      assert.equal((await browser.register("ada@example.com")).status, 303);
      await browser.post("/auth/logout");
      await redis.stop();
      console.error = (...args: unknown[]) => errors.push(args);

      // A fresh browser: its session read needs no Redis; the limiter does.
      const page = await new Client(app).request("/auth/login", {
        method: "POST",
        form: { email: "ada@example.com", password: "correct horse" },
        headers: { accept: "text/html" },
      });
      assert.equal(page.status, 503);
      assert.equal(page.headers.get("retry-after"), "5");
      assert.match(await page.text(), /Something went wrong on our side/);

      const plain = await new Client(app).login(
        "ada@example.com",
        "correct horse",
      );
      assert.equal(plain.status, 503);
      assert.equal(plain.headers.get("retry-after"), "5");
      assert.equal(await plain.text(), "Service Unavailable");
      assert.ok(errors.length >= 2, "logged");
    } finally {
      console.error = error;
      await client.disconnect().catch(() => {});
      kv.close();
    }
  },
});
