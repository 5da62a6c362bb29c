/**
 * Serves the notes MCP server on http://127.0.0.1:8020/mcp (`PORT` to
 * change); clients send `Authorization: Bearer $MCP_TOKEN`:
 *
 *     MCP_TOKEN=$(openssl rand -hex 32) deno run -P=mcp examples/mcp/main.ts
 *
 * `AUTH_SERVER` names where clients get tokens (the RFC 9728 metadata);
 * default `http://127.0.0.1:8020` (this server issues none: give the token
 * to the client yourself, see README).
 *
 * @module
 */
import { serve } from "@fetchkit/toolkit/serve";
import { createApp } from "./app.ts";

const port = Number(Deno.env.get("PORT") ?? 8020);
const token = Deno.env.get("MCP_TOKEN");
if (token === undefined || token.length < 32) {
  console.error(
    "Set MCP_TOKEN to a secret of at least 32 characters: MCP_TOKEN=$(openssl rand -hex 32)",
  );
  Deno.exit(1);
}
// The app names this server as where tokens come from unless AUTH_SERVER
// says otherwise, so it is made once the port (maybe a free one) is known.
const server = serve((request, info) => app.router.fetch(request, info), {
  hostname: "127.0.0.1",
  port,
  onListen: ({ hostname, port }) =>
    console.log(`Listening on http://${hostname}:${port}/`),
});
const app = createApp({
  token,
  authorizationServer: Deno.env.get("AUTH_SERVER") ??
    `http://127.0.0.1:${server.addr.port}`,
});
// SIGTERM or Ctrl-C: serve() ends the open event streams, then we close the sessions.
await server.finished;
await app.close();
