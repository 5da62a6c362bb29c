// The guide's "Deploying" recipe, run as written: two processes of
// examples/multi_server/main.ts started with the guide's own command lines
// (only the port becomes 0, a free one) share one throwaway redis-server. A
// login through one is recognised by the other.

import assert from "node:assert/strict";
import { type Running, startCommand } from "../../_tools/doc_run.ts";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";

const redisServer = await redisServerOrSkip();
const repo = new URL("../../", import.meta.url).pathname;

async function readmeCommands(): Promise<string[]> {
  const readme = await Deno.readTextFile(`${repo}docs/guide.md`);
  const lines = readme.split("\n").filter((line) =>
    /^PORT=\d+ deno run .*examples\/multi_server\/main\.ts &$/.test(line)
  );
  assert.equal(lines.length, 2, "the guide shows two processes");
  return lines.map((line) => line.replace(/^PORT=\d+ /, "").replace(/ &$/, ""));
}

async function post(
  server: Running,
  path: string,
  cookie: string,
  body?: URLSearchParams,
): Promise<string> {
  const response = await fetch(`${server.origin}${path}`, {
    method: "POST",
    headers: cookie ? { cookie } : {},
    body,
    redirect: "manual",
  });
  await response.body?.cancel();
  assert.equal(response.status, 303);
  const setCookie = response.headers.get("set-cookie");
  if (setCookie === null) return cookie;
  return /Max-Age=0/.test(setCookie) ? "" : setCookie.split(";")[0];
}

async function page(server: Running, cookie: string): Promise<string> {
  const response = await fetch(`${server.origin}/`, {
    headers: cookie ? { cookie } : {},
  });
  return await response.text();
}

Deno.test({
  name: "Deploying recipe: log in through one process, recognised by the other",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const env = {
      PORT: "0",
      REDIS_URL: redis.url,
      SESSION_SECRET: btoa(
        String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))),
      ),
    };
    const servers: Running[] = [];
    try {
      for (const command of await readmeCommands()) {
        servers.push(await startCommand(repo, command, env));
      }
      const [a, b] = servers;
      const portOf = (server: Running) => new URL(server.origin).port;
      assert.notEqual(portOf(a), portOf(b));

      assert.match(await page(b, ""), /Log in/);
      const cookie = await post(
        a,
        "/login",
        "",
        new URLSearchParams({ name: "Ada" }),
      );
      assert.match(cookie, /^session=/);
      assert.match(
        await page(b, cookie),
        new RegExp(`Hello, Ada \\(served by ${portOf(b)}\\)`),
      );
      assert.match(
        await page(a, cookie),
        new RegExp(`Hello, Ada \\(served by ${portOf(a)}\\)`),
      );

      // Logged out through b: a forgets the user too.
      const after = await post(b, "/logout", cookie);
      assert.equal(after, "");
      assert.match(await page(a, cookie), /Log in/);
    } finally {
      for (const server of servers) await server.stop();
      await redis.stop();
    }
  },
});

Deno.test({
  name: "Deploying recipe: in production the cookie is __Host-session, Secure",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const [command] = await readmeCommands();
    const server = await startCommand(repo, command, {
      PORT: "0",
      REDIS_URL: redis.url,
      DENO_ENV: "production",
      SESSION_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    });
    try {
      const response = await fetch(`${server.origin}/login`, {
        method: "POST",
        body: new URLSearchParams({ name: "Ada" }),
        redirect: "manual",
      });
      await response.body?.cancel();
      const setCookie = response.headers.get("set-cookie") ?? "";
      assert.match(setCookie, /^__Host-session=/);
      assert.match(setCookie, /; Path=\/;/);
      assert.match(setCookie, /; Secure/);
      assert.doesNotMatch(setCookie, /Domain=/);
    } finally {
      await server.stop();
      await redis.stop();
    }
  },
});

Deno.test({
  name:
    "login with an empty or blank name: 422, the form again with the reason, nobody logged in",
  ignore: redisServer === undefined,
  async fn() {
    const redis = await startRedis(redisServer!);
    const [command] = await readmeCommands();
    const server = await startCommand(repo, command, {
      PORT: "0",
      REDIS_URL: redis.url,
      SESSION_SECRET: crypto.randomUUID() + crypto.randomUUID(),
    });
    try {
      for (const name of ["", "   "]) {
        const response = await fetch(`${server.origin}/login`, {
          method: "POST",
          body: new URLSearchParams({ name }),
          redirect: "manual",
        });
        assert.equal(response.status, 422);
        assert.equal(response.headers.get("set-cookie"), null);
        const page = await response.text();
        assert.match(
          page,
          /<p class="error" id="name-error" role="alert">Enter your name: it cannot be empty or only spaces\.<\/p>/,
        );
        assert.match(page, /aria-invalid="true"/);
      }
      const long = await fetch(`${server.origin}/login`, {
        method: "POST",
        body: new URLSearchParams({ name: "x".repeat(101) }),
      });
      assert.equal(long.status, 422);
      assert.match(await long.text(), /at most 100 characters/);
    } finally {
      await server.stop();
      await redis.stop();
    }
  },
});
