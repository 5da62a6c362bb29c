/**
 * A JSON API: notes stored in Deno KV, every input validated.
 *
 * - `create` and `update` read their JSON body with `parseJson()`: a body
 *   that is not JSON is a 415, too large a 413, malformed a 400 (the message
 *   says where), all thrown as `HttpError`s and answered by the router; a
 *   note the schema refuses is a 422 with `fieldErrors` by field.
 * - `:id` goes through `parseParams()` with `z.coerce.number()`: a number, or
 *   a 400.
 * - the list is paginated with `parseQuery()`: `?limit=20&after=0`.
 *
 * Errors are `{ "error": message }` JSON for clients that accept JSON
 * (`Accept: application/json`), text otherwise.
 *
 * - `create`, `update` and `destroy` need `Authorization: Bearer <jwt>`
 *   (HS256, issued by and for `notes-api`; see `auth.ts`, and `token.ts`
 *   to print one): without a valid token, a 401 with a
 *   `WWW-Authenticate: Bearer ... error="invalid_token"` challenge. Reads
 *   are open.
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
import {
  parseJson,
  parseParams,
  parseQuery,
} from "@fetchkit/toolkit/validation";
import * as z from "zod";
import { routes } from "./routes.ts";
import { requireToken } from "./auth.ts";

/** What a client sends to create or replace a note. */
export const NoteInput = z.object({
  title: z.string().trim().min(1, "Title is required").max(
    200,
    "Title must be at most 200 characters",
  ),
  body: z.string().max(10_000, "Body must be at most 10,000 characters")
    .default(""),
  tags: z.array(z.string().trim().min(1).max(30)).max(10).default([]),
});

/** `:id`: a positive whole number. */
export const NoteId = z.object({ id: z.coerce.number().int().positive() });

/** The list's query string. */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** Notes after this id (the previous page's last). */
  after: z.coerce.number().int().min(0).default(0),
});

/** A stored note. */
export interface Note extends z.output<typeof NoteInput> {
  id: number;
  createdAt: string;
  updatedAt: string;
}

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

/** The notes API on `kv`. */
export function createApp(options: AppOptions): Router {
  const { kv } = options;
  const maxBytes = options.maxBytes ?? 32 * 1024;
  const router = createRouter();
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

  /** The `:id` of the request, or a 400. */
  async function idOf(params: Record<string, string>): Promise<number> {
    const result = await parseParams(params, NoteId);
    if (!result.success) {
      throw new HttpError(400, `Note id must be a positive whole number`);
    }
    return result.value.id;
  }

  async function find(id: number): Promise<Deno.KvEntry<Note>> {
    const entry = await kv.get<Note>(["notes", id]);
    if (entry.value === null) throw new HttpError(404, `Note ${id} not found`);
    return entry as Deno.KvEntry<Note>;
  }

  const invalid = (
    fieldErrors: Record<string, string[]>,
    formErrors: string[],
  ) => Response.json({ fieldErrors, formErrors }, { status: 422 });

  router.map(routes, {
    actions: {
      notes: {
        actions: {
          index: {
            middleware: [listCache],
            handler: async ({ url }) => {
              const query = await parseQuery(url, ListQuery);
              if (!query.success) {
                return Response.json({ fieldErrors: query.fieldErrors }, {
                  status: 400,
                });
              }
              const { limit, after } = query.value;
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
                  ? `${routes.notes.index.href()}?limit=${limit}&after=${last.id}`
                  : null,
              });
            },
          },

          create: {
            middleware: [auth, createOnce],
            handler: async ({ request }) => {
              const input = await parseJson(request, NoteInput, { maxBytes });
              if (!input.success) {
                return invalid(input.fieldErrors, input.formErrors);
              }
              const now = new Date().toISOString();
              // Takes the next id and stores the note in one atomic write;
              // retried when another create took the id first.
              for (;;) {
                const counter = await kv.get<bigint>(NEXT_ID);
                const id = Number((counter.value ?? 0n) + 1n);
                const note: Note = {
                  id,
                  ...input.value,
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

          async show({ params }) {
            return Response.json((await find(await idOf(params))).value);
          },

          update: {
            middleware: [auth],
            async handler({ params, request }) {
              const id = await idOf(params);
              const input = await parseJson(request, NoteInput, { maxBytes });
              if (!input.success) {
                return invalid(input.fieldErrors, input.formErrors);
              }
              const entry = await find(id);
              const note: Note = {
                ...entry.value,
                ...input.value,
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
            async handler({ params }) {
              const id = await idOf(params);
              await find(id);
              await kv.delete(["notes", id]);
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
