/**
 * The notes API as a contract: one route map with the schemas of what each
 * route takes and gives, shared by the server (`app.ts` validates with it),
 * the typed client (`client.ts`) and the OpenAPI document (`/openapi.json`).
 *
 * | route | method | pattern | takes | gives |
 * |---|---|---|---|---|
 * | `notes.index` | GET | `/notes` | query `limit`, `after` | `{ notes, next }` |
 * | `notes.create` | POST | `/notes` | `NoteInput` | `Note` (201) |
 * | `notes.show` | GET | `/notes/:id` | | `Note` |
 * | `notes.update` | PUT | `/notes/:id` | `NoteInput` | `Note` |
 * | `notes.destroy` | DELETE | `/notes/:id` | | 204 |
 * | `openapi` | GET | `/openapi.json` | | the OpenAPI document |
 * | `home` | GET | `/` | | what the API is, with links |
 *
 * `:id` is a positive whole number (`400` otherwise); a body the schema
 * refuses is a `422` with `fieldErrors`.
 *
 * @module
 */
import { resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import * as z from "zod";

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

/** A stored note, as the API gives it. */
export const Note = z.object({
  id: z.number().int().positive(),
  /** The `sub` of the token that created it: only they may change it. */
  owner: z.string(),
  title: z.string(),
  body: z.string(),
  tags: z.array(z.string()),
  createdAt: z.iso.datetime(),
  updatedAt: z.iso.datetime(),
});

/** A stored note. */
export type Note = z.output<typeof Note>;

/** `:id`: a positive whole number. */
export const NoteId = z.object({ id: z.coerce.number().int().positive() });

/** The list's query string. */
export const ListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  /** Notes after this id (the previous page's last). */
  after: z.coerce.number().int().min(0).default(0),
});

/** A page of notes, with the link to the next one (or `null`). */
export const NotePage = z.object({
  notes: z.array(Note),
  next: z.string().nullable(),
});

/** The notes API's routes, with their schemas. */
export const routes = route({
  notes: resources("notes", {
    exclude: ["new", "edit"],
    schemas: {
      index: { query: ListQuery, response: NotePage },
      create: { body: NoteInput, response: Note },
      show: { params: NoteId, response: Note },
      update: { params: NoteId, body: NoteInput, response: Note },
      destroy: { params: NoteId },
    },
  }),
  openapi: { method: "GET", pattern: "/openapi.json" },
  home: { method: "GET", pattern: "/" },
});
