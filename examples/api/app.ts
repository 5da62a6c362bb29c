/**
 * A JSON API: notes stored in Deno KV, written as a contract. The routes and
 * their schemas live in `routes.ts`; the router validates every input
 * before the handler runs, and handlers read `context.input`:
 *
 * - `create` and `update` bodies are JSON (or a form) checked by
 *   `NoteInput`: a body that is not JSON is a 415, too large a 413,
 *   malformed a 400 (the message says where), all answered by the router;
 *   a note the schema refuses is a 422 with `fieldErrors` by field.
 * - `:id` goes through `NoteId` (`z.coerce.number()`): a number, or a 400
 *   with `fieldErrors.id`.
 * - the list is paginated by `ListQuery`: `?limit=20&after=0`.
 * - `/openapi.json` is the OpenAPI 3.1 document of the same routes, and
 *   `client.ts` calls them through the typed client.
 *
 * Errors are `{ "error": message }` JSON for clients that accept JSON
 * (`Accept: application/json`), text otherwise.
 *
 * - `create`, `update` and `destroy` need `Authorization: Bearer <jwt>`
 *   (HS256, issued by and for `notes-api`; see `auth.ts`, and `token.ts`
 *   to print one): without a valid token, a 401 with a
 *   `WWW-Authenticate: Bearer ... error="invalid_token"` challenge. Reads
 *   are open. The token is checked before the body is read.
 *
 * - `create` takes an `Idempotency-Key` header (`idempotency()`, keys kept
 *   in the same KV database for a day): a client that retries a POST after
 *   a lost answer gets the first note back, not a second one.
 * - the list is cached for 5 seconds (`cache()` on a memory store); a
 *   create, update or delete in this process starts a new generation of
 *   list entries, so this process never lists older than its own writes
 *   (another process's writes show within 5 seconds).
 *
 * @module
 */
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { HttpError } from "@fetchkit/toolkit/http-error";
import {
  cache,
  createKvCacheStore,
  createMemoryCacheStore,
} from "@fetchkit/toolkit/cache-middleware";
import { idempotency } from "@fetchkit/toolkit/idempotency-middleware";
import { createOpenApiDocument } from "@fetchkit/toolkit/openapi";
import { type Note, routes } from "./routes.ts";
import { requireToken } from "./auth.ts";

export { ListQuery, Note, NoteId, NoteInput } from "./routes.ts";

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** Where notes are kept. */
  kv: Deno.Kv;
  /** Largest JSON body, in bytes (a KV value holds at most 64 KiB). */
  maxBytes?: number;
  /** Signs and verifies the write routes' bearer JWTs (HS256). */
  jwtSecret: string;
}

const NEXT_ID = ["notes_next_id"];

/** The notes API's OpenAPI document, made once from the route map. */
export const openApiDocument = createOpenApiDocument(routes, {
  info: {
    title: "Notes API",
    version: "1.0.0",
    description:
      "Notes stored in Deno KV: the @fetchkit/toolkit example. Writes need `Authorization: Bearer <jwt>`.",
  },
});

/** The notes API on `kv`. */
export function createApp(options: AppOptions): Router {
  const { kv } = options;
  const maxBytes = options.maxBytes ?? 32 * 1024;
  const router = createRouter({ input: { json: { maxBytes } } });
  // Bumped by every write: the list's cache key holds it.
  let generation = 0;
  const listCache = cache({
    store: createMemoryCacheStore({ maxBytes: 8 * 1024 * 1024 }),
    ttl: 5,
    key: ({ url }) => `notes ${generation} ${url.search}`,
  });
  const createOnce = idempotency({
    store: createKvCacheStore({ client: kv, prefix: "idempotency" }),
  });
  const auth = requireToken(options.jwtSecret);

  async function find(id: number): Promise<Deno.KvEntry<Note>> {
    const entry = await kv.get<Note>(["notes", id]);
    if (entry.value === null) throw new HttpError(404, `Note ${id} not found`);
    return entry as Deno.KvEntry<Note>;
  }

  router.map(routes, {
    actions: {
      openapi: () => Response.json(openApiDocument),
      notes: {
        actions: {
          index: {
            middleware: [listCache],
            handler: async ({ input }) => {
              const { limit, after } = input.query;
              const notes: Note[] = [];
              for await (
                const entry of kv.list<Note>({
                  prefix: ["notes"],
                  start: ["notes", after + 1],
                }, { limit })
              ) notes.push(entry.value);
              const last = notes.at(-1);
              return Response.json({
                notes,
                next: notes.length === limit && last !== undefined
                  ? routes.notes.index.href(undefined, {
                    search: { limit, after: last.id },
                  })
                  : null,
              });
            },
          },

          create: {
            middleware: [auth, createOnce],
            handler: async ({ input }) => {
              const now = new Date().toISOString();
              // Takes the next id and stores the note in one atomic write;
              // retried when another create took the id first.
              for (;;) {
                const counter = await kv.get<bigint>(NEXT_ID);
                const id = Number((counter.value ?? 0n) + 1n);
                const note: Note = {
                  id,
                  ...input.body,
                  createdAt: now,
                  updatedAt: now,
                };
                const { ok } = await kv.atomic()
                  .check(counter)
                  .set(NEXT_ID, BigInt(id))
                  .set(["notes", id], note)
                  .commit();
                if (ok) {
                  generation++;
                  return Response.json(note, {
                    status: 201,
                    headers: { Location: routes.notes.show.href({ id }) },
                  });
                }
              }
            },
          },

          async show({ input }) {
            return Response.json((await find(input.params.id)).value);
          },

          update: {
            middleware: [auth],
            async handler({ input }) {
              const { id } = input.params;
              const entry = await find(id);
              const note: Note = {
                ...entry.value,
                ...input.body,
                updatedAt: new Date().toISOString(),
              };
              const { ok } = await kv.atomic().check(entry).set(
                ["notes", id],
                note,
              ).commit();
              if (!ok) {
                throw new HttpError(409, `Note ${id} changed meanwhile: retry`);
              }
              generation++;
              return Response.json(note);
            },
          },

          destroy: {
            middleware: [auth],
            async handler({ input }) {
              await find(input.params.id);
              await kv.delete(["notes", input.params.id]);
              generation++;
              return new Response(null, { status: 204 });
            },
          },
        },
      },
    },
  });
  return router;
}
