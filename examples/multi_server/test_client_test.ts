// Two processes of the example behind no balancer at all: one browser (one
// cookie jar) visiting both origins, as createTestClient() over real HTTP
// (the global fetch as its handler). Cookies ignore ports, so the session
// cookie set by one process goes to the other, whose redis-backed session
// store knows it.
import assert from "node:assert/strict";
import { createTestClient } from "@fetchkit/toolkit/testing";
import { type Running, startCommand } from "../../_tools/doc_run.ts";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";

const redisServer = await redisServerOrSkip();
const repo = new URL("../../", import.meta.url).pathname;
const COMMAND = "deno run -P=multi-server examples/multi_server/main.ts";

Deno.test({
  name:
    "multi_server example (test client): one browser, two processes, one session",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const env = {
      PORT: "0",
      REDIS_URL: redis.url,
      SESSION_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    };
    const servers: Running[] = [];
    try {
      servers.push(await startCommand(repo, COMMAND, env));
      servers.push(await startCommand(repo, COMMAND, env));
      const [a, b] = servers.map((server) =>
        createTestClient(fetch, { origin: server.origin })
      );
      // One jar for both origins, as one browser has.
      const viaB = createTestClient(fetch, {
        origin: servers[1].origin,
        cookies: a.cookies,
      });
      const portB = new URL(servers[1].origin).port;
      const portA = new URL(servers[0].origin).port;

      assert.match(await b.html("/"), /You are not logged in/);
      const home = await a.post("/login", {
        form: { name: "Ada <3" },
        redirect: "follow",
      });
      assert.equal(home.url, servers[0].origin + "/");
      assert.match(
        await home.text(),
        new RegExp(`Hello, Ada &lt;3 \\(served by ${portA}\\)`),
      );
      assert.ok(a.cookies.get("session"), "the session cookie is in the jar");

      // The other process, with the same jar: logged in.
      assert.match(
        await viaB.html("/"),
        new RegExp(`Hello, Ada &lt;3 \\(served by ${portB}\\)`),
      );
      // A browser without that cookie is not.
      assert.match(await b.html("/"), /You are not logged in/);

      // Logged out through b: the cookie is gone, a forgets the user too.
      await viaB.post("/logout", { redirect: "follow" });
      assert.equal(a.cookies.get("session"), undefined);
      assert.match(await a.html("/"), /You are not logged in/);
    } finally {
      for (const server of servers) await server.stop();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "multi_server example (test client): in production a plain-http browser does not keep the __Host- cookie",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const server = await startCommand(repo, COMMAND, {
      PORT: "0",
      REDIS_URL: redis.url,
      DENO_ENV: "production",
      SESSION_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    });
    try {
      const client = createTestClient(fetch, { origin: server.origin });
      const response = await client.post("/login", { form: { name: "Ada" } });
      await response.body?.cancel();
      assert.match(
        response.headers.get("set-cookie") ?? "",
        /^__Host-session=.*; Secure/,
      );
      // Secure cookies only come from https: origins (RFC 6265bis): behind
      // TLS the browser keeps it; over plain http it does not.
      assert.deepEqual(client.cookies.cookies(), []);
      assert.match(await client.html("/"), /You are not logged in/);
    } finally {
      await server.stop();
      await redis.stop();
    }
  },
});
