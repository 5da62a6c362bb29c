// The notes tools through the SDK's own client, in process: the client's
// transport takes a fetch, here the router's.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createApp } from "./app.ts";

const TOKEN = "t".repeat(40);

function connected() {
  const app = createApp({
    token: TOKEN,
    authorizationServer: "https://auth.example",
    log: null,
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(
    new URL("http://localhost/mcp"),
    {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
      fetch: (url, init) =>
        Promise.resolve(app.router.fetch(new Request(url, init))),
    },
  );
  return { app, client, transport };
}

function textOf(result: Record<string, unknown>): string {
  return (result.content as { text: string }[]).map((c) => c.text).join("");
}

Deno.test("mcp example: notes added, listed, read and deleted through the tools", async () => {
  const { app, client, transport } = connected();
  try {
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, [
      "add_note",
      "delete_note",
      "list_notes",
      "read_note",
    ]);
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      await client.callTool({ name, arguments: args });
    assert.equal(textOf(await call("list_notes")), "No notes yet.");
    assert.equal(
      textOf(await call("add_note", { title: "Milk", body: "2 litres" })),
      "Added note #1.",
    );
    assert.equal(
      textOf(await call("add_note", { title: " Eggs " })),
      "Added note #2.",
    );
    assert.equal(textOf(await call("list_notes")), "#1 Milk\n#2 Eggs");
    assert.equal(
      textOf(await call("read_note", { id: 1 })),
      "# Milk\n\n2 litres",
    );
    const missing = await call("read_note", { id: 9 });
    assert.equal(missing.isError, true);
    assert.equal(textOf(missing), "No note #9.");
    // Input the schema refuses is a tool error naming the field.
    const bad = await call("add_note", { title: "" });
    assert.equal(bad.isError, true);
    assert.match(textOf(bad), /title/);
    assert.equal(
      textOf(await call("delete_note", { id: 1 })),
      "Deleted note #1.",
    );
    assert.equal(textOf(await call("list_notes")), "#2 Eggs");
  } finally {
    await client.close();
    await app.close();
  }
});

Deno.test("mcp example: a short token is refused at start; a wrong one gets the 401 with the metadata's address", async () => {
  assert.throws(
    () =>
      createApp({ token: "short", authorizationServer: "https://a.example" }),
    /at least 32 characters \(got 5\)/,
  );
  const app = createApp({
    token: TOKEN,
    authorizationServer: "https://auth.example",
    log: null,
  });
  const refused = await app.router.fetch(
    new Request("http://localhost/mcp", {
      method: "POST",
      headers: { Authorization: "Bearer nope" },
    }),
  );
  assert.equal(refused.status, 401);
  assert.match(
    refused.headers.get("www-authenticate")!,
    /^Bearer realm="notes", error="invalid_token".*resource_metadata="http:\/\/localhost\/\.well-known\/oauth-protected-resource\/mcp"$/,
  );
  const metadata = await app.router.fetch(
    new Request("http://localhost/.well-known/oauth-protected-resource/mcp"),
  );
  assert.deepEqual(await metadata.json(), {
    resource: "http://localhost/mcp",
    authorization_servers: ["https://auth.example"],
    bearer_methods_supported: ["header"],
    resource_name: "fetchkit notes",
  });
});

Deno.test("mcp example: the token holds at most SESSIONS_PER_CLIENT sessions at once", async () => {
  const { SESSIONS_PER_CLIENT } = await import("./app.ts");
  const app = createApp({
    token: TOKEN,
    authorizationServer: "https://auth.example",
    log: null,
  });
  const initialize = async () => {
    const response = await app.router.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-03-26",
            capabilities: {},
            clientInfo: { name: "leaky", version: "1" },
          },
        }),
      }),
    );
    await response.body?.cancel();
    return response.status;
  };
  try {
    const statuses = [];
    for (let i = 0; i < SESSIONS_PER_CLIENT + 2; i++) {
      statuses.push(await initialize());
    }
    assert.deepEqual(statuses, [
      ...Array(SESSIONS_PER_CLIENT).fill(200),
      503,
      503,
    ]);
  } finally {
    await app.close();
  }
});
