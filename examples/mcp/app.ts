/**
 * Notes as Model Context Protocol tools: an assistant (Claude, an IDE, any
 * MCP client) lists, reads, adds and deletes short notes through
 * `/mcp`, behind a bearer token. Each client session gets a server of its
 * own (`makeServer`); they share one notes store.
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { bearerAuth } from "@fetchkit/toolkit/bearer-auth-middleware";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { mcpHandler } from "@fetchkit/toolkit/mcp";
// The SDK's types are found without the ".js" its runtime paths need.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import * as z from "zod";

/** One note. */
export interface Note {
  id: number;
  title: string;
  body: string;
}

/** The notes, in memory. */
export class NotesStore {
  #notes = new Map<number, Note>();
  #next = 1;

  /** Every note, oldest first. */
  list(): Note[] {
    return [...this.#notes.values()];
  }

  /** One note, or `undefined`. */
  get(id: number): Note | undefined {
    return this.#notes.get(id);
  }

  /** Adds a note and gives it back with its id. */
  add(title: string, body: string): Note {
    const note = { id: this.#next++, title, body };
    this.#notes.set(note.id, note);
    return note;
  }

  /** Deletes a note; whether there was one. */
  delete(id: number): boolean {
    return this.#notes.delete(id);
  }
}

function text(value: string) {
  return { content: [{ type: "text" as const, text: value }] };
}

/** An MCP server whose tools work on `store`. */
export function makeServer(store: NotesStore): McpServer {
  const server = new McpServer({ name: "fetchkit-notes", version: "1.0.0" });
  server.registerTool("list_notes", {
    description: "Lists every note: its id and title.",
  }, () =>
    text(
      store.list().map((n) => `#${n.id} ${n.title}`).join("\n") ||
        "No notes yet.",
    ));
  server.registerTool("read_note", {
    description: "Reads one note by its id.",
    inputSchema: { id: z.number().int().positive() },
  }, ({ id }) => {
    const note = store.get(id);
    return note === undefined
      ? { ...text(`No note #${id}.`), isError: true }
      : text(`# ${note.title}\n\n${note.body}`);
  });
  server.registerTool("add_note", {
    description: "Adds a note; answers with its id.",
    inputSchema: {
      title: z.string().trim().min(1).max(200),
      body: z.string().max(10_000).default(""),
    },
  }, ({ title, body }) => text(`Added note #${store.add(title, body).id}.`));
  server.registerTool(
    "delete_note",
    {
      description: "Deletes a note by its id.",
      inputSchema: { id: z.number().int().positive() },
    },
    ({ id }) =>
      store.delete(id)
        ? text(`Deleted note #${id}.`)
        : { ...text(`No note #${id}.`), isError: true },
  );
  return server;
}

/** Sessions the token may hold at once; more get `503` until one ends. */
export const SESSIONS_PER_CLIENT = 8;

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** The bearer token clients must send (at least 32 characters). */
  token: string;
  /** Where clients get tokens, for the RFC 9728 metadata. */
  authorizationServer: string;
  /** The notes; a new empty store by default. */
  store?: NotesStore;
  /** Where log lines go; default `console.log`, `null` for none. */
  log?: ((line: string) => void) | null;
}

/** The app: `/mcp` and its protected resource metadata. */
export function createApp(options: AppOptions): {
  router: Router;
  close(): Promise<void>;
} {
  if (options.token.length < 32) {
    throw new TypeError(
      `the MCP token must be at least 32 characters (got ${options.token.length}); make one with: openssl rand -hex 32`,
    );
  }
  const store = options.store ?? new NotesStore();
  const mcp = mcpHandler(() => makeServer(store), {
    auth: bearerAuth({ token: options.token, realm: "notes" }),
    resourceMetadata: {
      authorizationServers: [options.authorizationServer],
      resourceName: "fetchkit notes",
    },
    // One token, one owner: a client that leaks sessions (or a stolen
    // token) holds at most 8 at once, about 800 KiB, instead of all 1,000.
    // Each session answers only the token that opened it.
    maxSessionsPerClient: SESSIONS_PER_CLIENT,
  });
  const router = createRouter({
    middleware: options.log === null
      ? []
      : [logger({ log: options.log ?? console.log })],
  });
  router.any("/mcp", mcp);
  router.get("/.well-known/oauth-protected-resource/mcp", mcp.metadata);
  return { router, close: () => mcp.close() };
}
