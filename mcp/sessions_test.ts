// mcpHandler() sessions against their callers, over real HTTP: a session
// belongs to the identity that opened it (another token gets 404, as for
// an unknown id), maxSessions holds under concurrent initializes, and one
// identity (or address) cannot open every session.
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SignJWT } from "jose";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
import { jwt } from "@fetchkit/toolkit/jwt-middleware";
import { serve } from "@fetchkit/toolkit/serve";
import { mcpHandler, type McpHandlerOptions } from "@fetchkit/toolkit/mcp";

const ALICE = "alice-token-that-is-long-enough-0123456789";
const BOB = "bob-token-that-is-long-enough-0123456789ab";
const SECRET = "an HS256 secret of at least thirty-two bytes!!";
const metadata = {
  resourceMetadata: { authorizationServers: ["https://auth.example"] },
};

function makeServer(): McpServer {
  return new McpServer({ name: "test", version: "1.0.0" });
}

async function start(options: McpHandlerOptions = {}) {
  const mcp = mcpHandler(makeServer, options);
  const router = createRouter();
  router.any("/mcp", mcp);
  let listening!: () => void;
  const ready = new Promise<void>((resolve) => listening = resolve);
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
    onListen: () => listening(),
  });
  await ready;
  const url = `http://127.0.0.1:${server.addr.port}/mcp`;
  return {
    mcp,
    url,
    async stop() {
      await mcp.close();
      await server.shutdown();
    },
  };
}

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-03-26",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

function headers(token?: string, session?: string): Record<string, string> {
  return {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
    ...(session === undefined ? {} : { "Mcp-Session-Id": session }),
  };
}

/** A body that arrives after `ms`, as from a slow client. */
function late(text: string, ms: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    async start(controller) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      controller.enqueue(new TextEncoder().encode(text));
      controller.close();
    },
  });
}

/** An initialize POST (its body `delayMs` late): its status and session id. */
async function initialize(
  url: string,
  token?: string,
  delayMs = 0,
): Promise<{ status: number; id: string | null }> {
  const response = await fetch(url, {
    method: "POST",
    headers: headers(token),
    body: delayMs === 0 ? INITIALIZE : late(INITIALIZE, delayMs),
    // @ts-ignore: Node's fetch needs it for a stream body
    duplex: "half",
  });
  await response.body?.cancel();
  return {
    status: response.status,
    id: response.headers.get("mcp-session-id"),
  };
}

async function call(
  url: string,
  method: string,
  token: string | undefined,
  session: string,
  rpc = "tools/list",
): Promise<number> {
  const response = await fetch(url, {
    method,
    headers: headers(token, session),
    body: method === "POST"
      ? JSON.stringify({ jsonrpc: "2.0", id: 2, method: rpc })
      : undefined,
  });
  await response.body?.cancel();
  return response.status;
}

async function initialized(url: string, token: string | undefined, id: string) {
  const response = await fetch(url, {
    method: "POST",
    headers: headers(token, id),
    body: JSON.stringify({
      jsonrpc: "2.0",
      method: "notifications/initialized",
    }),
  });
  await response.body?.cancel();
  assert.equal(response.status, 202);
}

Deno.test("mcpHandler: a session is bound to the bearer token that opened it; another token gets 404 and cannot end it", async () => {
  const app = await start({
    auth: bearerAuth({ token: [ALICE, BOB] }),
    ...metadata,
  });
  try {
    const opened = await initialize(app.url, ALICE);
    assert.equal(opened.status, 200);
    const id = opened.id!;
    await initialized(app.url, ALICE, id);
    assert.equal(await call(app.url, "POST", ALICE, id), 200);
    assert.equal(await call(app.url, "POST", BOB, id), 404);
    assert.equal(await call(app.url, "GET", BOB, id), 404);
    assert.equal(await call(app.url, "DELETE", BOB, id), 404);
    assert.equal(app.mcp.sessions(), 1);
    assert.equal(await call(app.url, "POST", ALICE, id), 200);
    assert.equal(await call(app.url, "DELETE", ALICE, id), 200);
    assert.equal(app.mcp.sessions(), 0);
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: with jwt(), a session is bound to the token's subject (a fresh token of the same sub keeps it)", async () => {
  const app = await start({
    auth: jwt({ secret: SECRET, algorithms: ["HS256"] }),
    ...metadata,
  });
  const sign = (sub: string, jti: string) =>
    new SignJWT({ jti }).setSubject(sub).setProtectedHeader({ alg: "HS256" })
      .setExpirationTime("5m").sign(new TextEncoder().encode(SECRET));
  try {
    const alice1 = await sign("alice", "1");
    const alice2 = await sign("alice", "2");
    const bob = await sign("bob", "3");
    const opened = await initialize(app.url, alice1);
    assert.equal(opened.status, 200);
    const id = opened.id!;
    await initialized(app.url, alice1, id);
    assert.equal(await call(app.url, "POST", alice2, id), 200);
    assert.equal(await call(app.url, "POST", bob, id), 404);
    assert.equal(await call(app.url, "DELETE", bob, id), 404);
    assert.equal(app.mcp.sessions(), 1);
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: 15 concurrent initializes open no more than maxSessions (5)", async () => {
  const app = await start({ maxSessions: 5, maxSessionsPerClient: 100 });
  try {
    const results = await Promise.all(
      // Bodies that come late: every request is in before any is read.
      Array.from({ length: 15 }, () => initialize(app.url, undefined, 200)),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(5).fill(200), ...Array(10).fill(503)]);
    assert.equal(app.mcp.sessions(), 5);
  } finally {
    await app.stop();
  }
});

Deno.test("mcpHandler: maxSessionsPerClient bounds one identity (or address); others still open theirs", async () => {
  const app = await start({
    auth: bearerAuth({ token: [ALICE, BOB] }),
    ...metadata,
    maxSessionsPerClient: 2,
  });
  try {
    const alice = await Promise.all(
      Array.from({ length: 6 }, () => initialize(app.url, ALICE, 200)),
    );
    assert.deepEqual(alice.map((r) => r.status).sort(), [
      200,
      200,
      503,
      503,
      503,
      503,
    ]);
    assert.equal((await initialize(app.url, BOB)).status, 200);
    assert.equal(app.mcp.sessions(), 3);
    // Ending one of Alice's frees her a place.
    const id = alice.find((r) => r.status === 200)!.id!;
    assert.equal(await call(app.url, "DELETE", ALICE, id), 200);
    assert.equal((await initialize(app.url, ALICE)).status, 200);
  } finally {
    await app.stop();
  }
  // Without auth, the limit is per address.
  const open = await start({ maxSessionsPerClient: 3 });
  try {
    const results = await Promise.all(
      Array.from({ length: 5 }, () => initialize(open.url)),
    );
    assert.equal(results.filter((r) => r.status === 200).length, 3);
    const refused = await fetch(open.url, {
      method: "POST",
      headers: headers(),
      body: INITIALIZE,
    });
    assert.equal(refused.status, 503);
    assert.match(
      (await refused.json()).error.message,
      /Too many MCP sessions for this client \(limit 3\)/,
    );
  } finally {
    await open.stop();
  }
});
