// The OpenAPI document of a route map: its shape (portable), and its
// validity against the OpenAPI 3.1 JSON Schema by
// @seriousme/openapi-schema-validator (Ajv, schemas shipped in the package:
// no network; not in the Node/Bun bundle, which moves the files it reads).
import assert from "node:assert/strict";
import { Validator } from "@seriousme/openapi-schema-validator";
import { createOpenApiDocument } from "@fetchkit/toolkit/openapi";
import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import * as z from "zod";
import * as v from "valibot";

const Note = z.object({
  id: z.number().int(),
  title: z.string(),
  tags: z.array(z.string()),
});
const NoteInput = z.object({
  title: z.string().min(1),
  tags: z.array(z.string()).default([]),
});
const Id = z.object({ id: z.coerce.number().int().positive() });

const routes = route({
  notes: resources("notes", {
    exclude: ["new", "edit"],
    names: { index: "list" },
    schemas: {
      index: {
        query: z.object({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          q: z.string(),
        }),
        response: z.object({ notes: z.array(Note) }),
      },
      show: { params: Id, response: Note },
      create: { body: NoteInput, response: Note },
      update: { params: Id, body: NoteInput, response: Note },
      destroy: { params: Id },
    },
  }),
  feed: { method: "GET", pattern: "/feed(.:format)" },
  files: { method: "GET", pattern: "/files/*path" },
  contact: form("contact", {
    schemas: { action: { body: z.object({ email: z.email() }) } },
  }),
  health: { method: "GET", pattern: "/health" },
  legacy: "/legacy",
});

async function assertValid(document: unknown) {
  const validator = new Validator();
  const result = await validator.validate(document as Record<string, unknown>);
  assert.equal(validator.version, "3.1");
  assert.deepEqual(result, { valid: true });
  // The validator is no rubber stamp: an operation without responses' descriptions fails.
  const broken = structuredClone(document) as {
    paths: Record<string, Record<string, { responses: object }>>;
  };
  const first = Object.values(broken.paths)[0];
  Object.values(first)[0].responses = { "2XX": {} };
  assert.equal((await new Validator().validate(broken)).valid, false);
}

function notesDocument(warnings: string[] = []) {
  return createOpenApiDocument(routes, {
    info: { title: "Notes", version: "1.0.0", description: "A notes API" },
    servers: [{ url: "https://api.example.com" }],
    onWarning: (message) => warnings.push(message),
  });
}

function itemsDocument(warnings: string[] = []) {
  return createOpenApiDocument(
    route({
      items: resources("items", {
        only: ["show", "create"],
        schemas: {
          show: {
            params: v.object({ id: v.string() }),
            response: z.object({ id: z.string() }),
          },
          create: { body: v.object({ name: v.string() }) },
        },
      }),
    }),
    {
      info: { title: "Items", version: "1" },
      onWarning: (m) => warnings.push(m),
    },
  );
}

Deno.test("openapi: documents validate against the OpenAPI 3.1 schema (@seriousme/openapi-schema-validator)", async () => {
  await assertValid(notesDocument());
  await assertValid(itemsDocument());
});

Deno.test("openapi: paths, operation ids, parameters, bodies and responses of a route map", () => {
  const warnings: string[] = [];
  const document = notesDocument(warnings);
  assert.equal(document.openapi, "3.1.0");
  assert.deepEqual(document.servers, [{ url: "https://api.example.com" }]);
  assert.deepEqual(Object.keys(document.paths).sort(), [
    "/contact",
    "/feed",
    "/feed.{format}",
    "/files/{path}",
    "/health",
    "/notes",
    "/notes/{id}",
  ]);
  assert.deepEqual(Object.keys(document.paths["/notes/{id}"]), [
    "get",
    "put",
    "delete",
  ]);
  const show = document.paths["/notes/{id}"].get;
  assert.equal(show.operationId, "notes.show");
  assert.deepEqual(show.parameters, [{
    name: "id",
    in: "path",
    required: true,
    schema: { type: "integer", exclusiveMinimum: 0, maximum: 9007199254740991 },
  }]);
  assert.deepEqual(
    show.responses["2XX"].content?.["application/json"].schema,
    {
      type: "object",
      properties: {
        id: {
          type: "integer",
          minimum: -9007199254740991,
          maximum: 9007199254740991,
        },
        title: { type: "string" },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["id", "title", "tags"],
      additionalProperties: false,
    },
  );
  assert.ok(show.responses["400"]);

  const list = document.paths["/notes"].get;
  assert.equal(list.operationId, "notes.list");
  assert.deepEqual(
    list.parameters?.map((p) => [p.name, p.in, p.required]),
    [["limit", "query", false], ["q", "query", true]],
  );
  const create = document.paths["/notes"].post;
  assert.equal(create.operationId, "notes.create");
  assert.equal(create.requestBody?.required, true);
  // The input side: tags has a default, so it is not required.
  assert.deepEqual(
    create.requestBody?.content["application/json"].schema.required,
    ["title"],
  );
  assert.deepEqual(Object.keys(create.responses).sort(), [
    "2XX",
    "400",
    "413",
    "415",
    "422",
  ]);

  assert.equal(document.paths["/feed.{format}"].get.operationId, "feed");
  assert.equal(document.paths["/feed"].get.operationId, "feed_2");
  assert.deepEqual(
    document.paths["/files/{path}"].get.parameters?.[0],
    { name: "path", in: "path", required: true, schema: { type: "string" } },
  );
  assert.equal(document.paths["/contact"].get.operationId, "contact.index");
  assert.equal(document.paths["/contact"].post.operationId, "contact.action");
  assert.deepEqual(document.paths["/health"].get.responses, {
    "2XX": { description: "Success" },
  });
  // The ANY route is left out, with a warning.
  assert.deepEqual(warnings, [
    "createOpenApiDocument: routes for a method OpenAPI has no name for, left out: legacy (ANY)",
  ]);
});

Deno.test("openapi: schemas without Standard JSON Schema give {} and one warning naming the routes", () => {
  const warnings: string[] = [];
  const document = itemsDocument(warnings);
  assert.deepEqual(warnings, [
    "createOpenApiDocument: schemas without a Standard JSON Schema converter (~standard.jsonSchema), documented as {}: items.show (params), items.create (body)",
  ]);
  assert.deepEqual(
    document.paths["/items"].post.requestBody?.content["application/json"]
      .schema,
    {},
  );
  // A path parameter whose schema says nothing is a string.
  assert.deepEqual(
    document.paths["/items/{id}"].get.parameters?.[0].schema,
    { type: "string" },
  );
});

Deno.test("openapi: a converter that throws is a warning, not a crash", () => {
  const warnings: string[] = [];
  const document = createOpenApiDocument(
    route({
      when: {
        method: "POST",
        pattern: "/when",
        // zod cannot write a Date transform as JSON Schema.
        body: z.object({ at: z.string().transform((s) => new Date(s)) }),
        response: z.object({ at: z.date() }),
      },
    }),
    { info: { title: "T", version: "1" }, onWarning: (m) => warnings.push(m) },
  );
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /when \(response\): /);
  assert.deepEqual(
    document.paths["/when"].post.responses["2XX"].content?.["application/json"]
      .schema,
    {},
  );
});

Deno.test("openapi: bad options and clashing routes are TypeErrors", () => {
  assert.throws(
    // @ts-expect-error version missing
    () => createOpenApiDocument(routes, { info: { title: "x" } }),
    /info needs a title and a version/,
  );
  assert.throws(
    () =>
      createOpenApiDocument(
        route({
          a: { method: "GET", pattern: "/x/:id" },
          b: { method: "GET", pattern: "/x/:id" },
        }),
        { info: { title: "x", version: "1" } },
      ),
    /routes "a" and "b" both serve GET \/x\/\{id\}/,
  );
});
