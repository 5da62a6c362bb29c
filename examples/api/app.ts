/**
 * A JSON API: notes stored in Deno KV, written as a contract. The routes and
 * their schemas live in `routes.ts`; the router validates every input
 * before the handler runs, and handlers read `context.input`:
 *
 * - `create` and `update` bodies are JSON (or a urlencoded or multipart
 *   form, as the typed client sends `FormData`) checked by `NoteInput`: one
 *   limit (`maxBytes`, 32 KiB) for every kind of body, a larger one is a
 *   413; a body of another type is a 415, malformed a 400 (the message
 *   says where), all answered by the router; a note the schema refuses is
 *   a 422 with `fieldErrors` by field.
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
 *   `WWW-Authenticate: Bearer` challenge. Reads are open. The token is
 *   checked before the body is read.
 * - every note has an owner, the `sub` of the token that created it; an
 *   update or delete with another subject's token is a 403.
 *
 * - `create` takes an `Idempotency-Key` header (`idempotency()`, keys kept
 *   in the same KV database for a day): a client that retries a POST after
 *   a lost answer gets the first note back, not a second one. Keys belong
 *   to the token's subject, so two clients behind one address (or one
 *   that learnt another's key) never get each other's answers.
 * - `GET /` says what the API is and links the OpenAPI document.
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
import { JwtPayload } from "@fetchkit/toolkit/jwt-middleware";
import { createOpenApiDocument } from "@fetchkit/toolkit/openapi";
import { type Note, routes } from "./routes.ts";
import { requireToken } from "./auth.ts";

export { ListQuery, Note, NoteId, NoteInput } from "./routes.ts";

/** Options of {@linkcode createApp}. */
export interface AppOptions {
  /** Where notes are kept. */
  kv: Deno.Kv;
  /**
   * Largest body, in bytes, JSON or form alike (a KV value holds at most
   * 64 KiB).
   */
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
  // One limit for every body the routes read: JSON and forms (no files).
  const router = createRouter({
    input: {
      json: { maxBytes },
      form: { maxTotalSize: maxBytes, maxFieldSize: maxBytes, maxFiles: 0 },
    },
  });
  // Bumped by every write: the list's cache key holds it.
  let generation = 0;
  const listCache = cache({
    store: createMemoryCacheStore({ maxBytes: 8 * 1024 * 1024 }),
    ttl: 5,
    key: ({ url }) => `notes ${generation} ${url.search}`,
  });
  const createOnce = idempotency({
    store: createKvCacheStore({ client: kv, prefix: "idempotency" }),
    // After auth: a key is the token holder's own, not their address's.
    scope: ({ get }) => get(JwtPayload)?.sub,
    maxRequestBytes: maxBytes,
  });
  const auth = requireToken(options.jwtSecret);

  async function find(id: number): Promise<Deno.KvEntry<Note>> {
    const entry = await kv.get<Note>(["notes", id]);
    if (entry.value === null) throw new HttpError(404, `Note ${id} not found`);
    return entry as Deno.KvEntry<Note>;
  }

  /** The note, if the token's subject owns it: 403 otherwise. */
  async function findOwn(
    id: number,
    subject: string | undefined,
  ): Promise<Deno.KvEntry<Note>> {
    const entry = await find(id);
    if (subject === undefined || entry.value.owner !== subject) {
      throw new HttpError(
        403,
        `Note ${id} belongs to another user: only its owner may change it`,
      );
    }
    return entry;
  }

  router.map(routes, {
    actions: {
      openapi: () => Response.json(openApiDocument),
      home: ({ url }) =>
        new Response(
          JSON.stringify(
            {
              name: openApiDocument.info.title,
              description:
                "A JSON API of notes. Reads are open; creating, changing and deleting a note need Authorization: Bearer <jwt> (HS256, issuer and audience notes-api), and only a note's owner may change it. POST /notes takes an Idempotency-Key.",
              openapi: new URL("/openapi.json", url).href,
              notes: new URL("/notes", url).href,
              readme:
                "examples/api/README.md in the @fetchkit/toolkit repository",
            },
            null,
            2,
          ),
          { headers: { "Content-Type": "application/json; charset=utf-8" } },
        ),
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
            handler: async ({ input, get }) => {
              const owner = get(JwtPayload)?.sub;
              if (owner === undefined) {
                throw new HttpError(403, "The token names no subject (sub)");
              }
              const now = new Date().toISOString();
              // Takes the next id and stores the note in one atomic write;
              // retried when another create took the id first.
              for (;;) {
                const counter = await kv.get<bigint>(NEXT_ID);
                const id = Number((counter.value ?? 0n) + 1n);
                const note: Note = {
                  id,
                  owner,
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
            async handler({ input, get }) {
              const { id } = input.params;
              const entry = await findOwn(id, get(JwtPayload)?.sub);
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
            async handler({ input, get }) {
              const entry = await findOwn(
                input.params.id,
                get(JwtPayload)?.sub,
              );
              // Deleted only if unchanged since the owner was checked.
              await kv.atomic().check(entry).delete(["notes", input.params.id])
                .commit();
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
