// mcpHandler() over real HTTP (serve() on a free loopback port) with the
// SDK's own client: tools listed and called, a progress notification
// streamed, bearer and JWT authentication with RFC 9728 metadata, Origin
// checks, sessions, stream limits and serve()'s graceful shutdown.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK's types are found without the ".js" its runtime paths need.
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import { discoverOAuthProtectedResourceMetadata } from "@modelcontextprotocol/sdk/client/auth.js";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";
import { SignJWT } from "jose";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
import { jwt } from "@fetchkit/toolkit/jwt-middleware";
import { streamLimit } from "@fetchkit/toolkit/stream-limit-middleware";
import { serve } from "@fetchkit/toolkit/serve";
import { mcpHandler, type McpHandlerOptions } from "@fetchkit/toolkit/mcp";

const TOKEN = "a-test-token-that-is-long-enough-0123456789";
const SECRET = "an HS256 secret of at least thirty-two bytes!!";

function makeServer(): McpServer {
  const server = new McpServer({ name: "test", version: "1.0.0" });
  server.registerTool("add", {
    description: "Adds two numbers",
    inputSchema: { a: z.number(), b: z.number() },
  }, ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }));
  server.registerTool("count", {
    description: "Counts to n, reporting progress",
    inputSchema: { n: z.number().int().min(1).max(10) },
  }, async ({ n }, extra) => {
    const token = extra._meta?.progressToken;
    for (let i = 1; i <= n; i++) {
      if (token !== undefined) {
        await extra.sendNotification({
          method: "notifications/progress",
          params: { progressToken: token, progress: i, total: n },
        });
      }
    }
    return { content: [{ type: "text", text: `counted to ${n}` }] };
  });
  server.registerTool("whoami", {
    description: "What the token said",
  }, (extra) => ({
    content: [{
      type: "text",
      text: JSON.stringify({
        clientId: extra.authInfo?.clientId,
        scopes: extra.authInfo?.scopes,
      }),
    }],
  }));
  return server;
}

async function start(options: McpHandlerOptions = {}) {
  const mcp = mcpHandler(makeServer, options);
  const router = createRouter();
  router.any("/mcp", mcp);
  router.get("/.well-known/oauth-protected-resource/mcp", mcp.metadata);
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => listening = resolve);
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    onListen: () => listening(),
  });
  await ready;
  const url = new URL(`http://127.0.0.1:${server.addr.port}/mcp`);
  return {
    mcp,
    server,
    url,
    async stop() {
      await mcp.close();
      await server.shutdown();
    },
  };
}

async function connect(url: URL, headers: Record<string, string> = {}) {
  const client = new Client({ name: "test-client", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers },
  });
  await client.connect(transport);
  return { client, transport };
}

const bearer = {
  auth: bearerAuth({ token: TOKEN }),
  resourceMetadata: {
    authorizationServers: ["https://auth.example"],
    scopesSupported: ["notes:read"],
  },
};

Deno.test("mcpHandler: the SDK client lists tools, calls one, and gets progress notifications streamed", async () => {
  const app = await start(bearer);
  try {
    const { client } = await connect(app.url, {
      Authorization: `Bearer ${TOKEN}`,
    });
    assert.equal(app.mcp.sessions(), 1);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      "add",
      "count",
      "whoami",
    ]);
    const sum = await client.callTool({
      name: "add",
      arguments: { a: 2, b: 40 },
    });
    assert.deepEqual(sum.content, [{ type: "text", text: "42" }]);

    const progress: [number, number | undefined][] = [];
    const counted = await client.callTool(
      { name: "count", arguments: { n: 3 } },
      undefined,
      { onprogress: (p) => progress.push([p.progress, p.total]) },
    );
    assert.deepEqual(counted.content, [{ type: "text", text: "counted to 3" }]);
    assert.deepEqual(progress, [[1, 3], [2, 3], [3, 3]]);

    const who = await client.callTool({ name: "whoami", arguments: {} });
    assert.deepEqual(JSON.parse((who.content as { text: string }[])[0].text), {
      clientId: "",
      scopes: [],
    });
    await client.close();
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: an unauthenticated call is refused with WWW-Authenticate pointing at the RFC 9728 metadata", async () => {
  const app = await start(bearer);
  try {
    const metadataUrl =
      `http://127.0.0.1:${app.server.addr.port}/.well-known/oauth-protected-resource/mcp`;
    const refused = await fetch(app.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        },
      }),
    });
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    assert.equal(
      refused.headers.get("www-authenticate"),
      `Bearer realm="api", resource_metadata="${metadataUrl}"`,
    );
    // The SDK's own discovery reads it from there.
    const metadata = await discoverOAuthProtectedResourceMetadata(app.url);
    assert.equal(metadata.resource, app.url.href);
    assert.deepEqual(metadata.authorization_servers, ["https://auth.example"]);
    assert.deepEqual(metadata.scopes_supported, ["notes:read"]);
    // And its client is refused.
    await assert.rejects(connect(app.url), { code: 401 });
    const wrong = await fetch(app.url, {
      method: "POST",
      headers: { Authorization: "Bearer wrong-token" },
    });
    await wrong.body?.cancel();
    assert.equal(wrong.status, 401);
    assert.match(
      wrong.headers.get("www-authenticate")!,
      /error="invalid_token".*resource_metadata=/,
    );
    assert.equal(app.mcp.sessions(), 0);
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: a foreign Origin is refused (DNS rebinding); a listed one passes", async () => {
  const app = await start({ allowedOrigins: ["http://localhost:6274"] });
  try {
    await assert.rejects(
      connect(app.url, { Origin: "https://evil.example" }),
      /403|not allowed/,
    );
    const raw = await fetch(app.url, {
      method: "POST",
      headers: { Origin: "http://127.0.0.1.evil.example" },
      body: "{}",
    });
    assert.equal(raw.status, 403);
    assert.match(
      (await raw.json()).error.message,
      /Origin "http:\/\/127.0.0.1.evil.example" is not allowed/,
    );
    const { client } = await connect(app.url, {
      Origin: "http://localhost:6274",
    });
    assert.equal((await client.listTools()).tools.length, 3);
    await client.close();
    assert.throws(
      () => mcpHandler(makeServer, { allowedOrigins: ["https://a.example/"] }),
      /must be an origin \(scheme, host, port; no path or trailing slash\), such as "https:\/\/a.example"/,
    );
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: JWT scopes reach tools as authInfo", async () => {
  const app = await start({
    auth: jwt({ secret: SECRET, algorithms: ["HS256"] }),
    resourceMetadata: { authorizationServers: ["https://auth.example"] },
  });
  try {
    const token = await new SignJWT({
      scope: "notes:read notes:write",
      client_id: "cli-7",
    })
      .setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("5m")
      .sign(new TextEncoder().encode(SECRET));
    const { client } = await connect(app.url, {
      Authorization: `Bearer ${token}`,
    });
    const who = await client.callTool({ name: "whoami", arguments: {} });
    assert.deepEqual(JSON.parse((who.content as { text: string }[])[0].text), {
      clientId: "cli-7",
      scopes: ["notes:read", "notes:write"],
    });
    await client.close();
    await assert.rejects(connect(app.url), { code: 401 });
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: sessions: ids, an unknown one is 404, DELETE ends one, maxSessions answers 503", async () => {
  const app = await start({ maxSessions: 1 });
  try {
    const first = await connect(app.url);
    const id = first.transport.sessionId!;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(app.mcp.sessions(), 1);
    // A second client is over the limit.
    await assert.rejects(connect(app.url), /503|Too many MCP sessions/);

    const unknown = await fetch(app.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Session-Id": "no-such-session",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assert.equal(unknown.status, 404);
    assert.match((await unknown.json()).error.message, /Session not found/);

    const get = await fetch(app.url);
    assert.equal(get.status, 400);
    assert.match((await get.json()).error.message, /needs an Mcp-Session-Id/);

    await first.transport.terminateSession(); // DELETE
    await first.client.close();
    assert.equal(app.mcp.sessions(), 0);
    const again = await connect(app.url);
    assert.equal(app.mcp.sessions(), 1);
    await again.client.close();
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: event streams count under streamLimit(), and serve()'s shutdown ends them at once", async () => {
  const limit = streamLimit({ perAddress: 5, total: 5 });
  const app = await start({ streams: limit });
  const { client } = await connect(app.url);
  // The client opens the GET stream of server messages after initialize.
  const deadline = Date.now() + 5000;
  while (limit.open() === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(limit.open(), 1, "the GET event stream is counted");
  const started = Date.now();
  await app.server.shutdown();
  await app.server.finished;
  assert.ok(
    Date.now() - started < 5000,
    "the open stream was ended, not waited for until the 10 s timeout",
  );
  assert.equal(limit.open(), 0, "and released");
  await client.close().catch(() => {});
  await app.mcp.close();
});

Deno.test("mcpHandler: an idle session is closed; its id then gets 404", async () => {
  const app = await start({ sessionIdleMs: 100 });
  try {
    const { client, transport } = await connect(app.url);
    const id = transport.sessionId!;
    assert.equal(app.mcp.sessions(), 1);
    const deadline = Date.now() + 5000;
    while (app.mcp.sessions() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    assert.equal(app.mcp.sessions(), 0, "closed after 100 ms idle");
    const stale = await fetch(app.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Mcp-Session-Id": id,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    assert.equal(stale.status, 404);
    await stale.body?.cancel();
    await client.close().catch(() => {});
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: one server instance serves one session at a time; bad options are TypeErrors", async () => {
  const mcp = mcpHandler(makeServer());
  const router = createRouter();
  router.any("/mcp", mcp);
  const initialize = () =>
    router.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-06-18",
            capabilities: {},
            clientInfo: { name: "raw", version: "1" },
          },
        }),
      }),
    );
  const first = await initialize();
  assert.equal(first.status, 200);
  await first.body?.cancel();
  const second = await initialize();
  assert.equal(second.status, 503);
  assert.equal(second.headers.get("retry-after"), "5");
  assert.match((await second.json()).error.message, /one session at a time/);
  await mcp.close();
  const third = await initialize();
  assert.equal(third.status, 200, "free again once the session closed");
  await third.body?.cancel();
  await mcp.close();

  assert.throws(
    () => mcpHandler({} as never),
    /give an McpServer \(or Server\) of @modelcontextprotocol\/sdk/,
  );
  assert.throws(
    () => mcpHandler(makeServer, { auth: bearerAuth({ token: TOKEN }) }),
    /auth needs resourceMetadata/,
  );
  assert.throws(
    () => mcpHandler(makeServer, { maxSessions: 0 }),
    /maxSessions must be a whole number of at least 1, got 0/,
  );
});
