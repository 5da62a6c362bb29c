/**
 * An OpenAPI 3.1 document from a route map: {@linkcode createOpenApiDocument}
 * turns the routes' patterns, names and schemas into paths, operation ids,
 * parameters, request bodies and responses, so the document and the server
 * come from the one value.
 *
 * JSON Schemas come from each schema's
 * [Standard JSON Schema](https://standardschema.dev) converter
 * (`schema["~standard"].jsonSchema`, which zod 4 and arktype implement),
 * the input side for what a route takes and the output side for its
 * `response`. A schema without one is documented as `{}` (anything), and
 * one warning lists those routes.
 *
 * ```ts
 * import { createOpenApiDocument } from "@fetchkit/toolkit/openapi";
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { resources } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const Note = z.object({ id: z.number(), title: z.string() });
 * const routes = {
 *   notes: resources("notes", {
 *     only: ["show", "create"],
 *     schemas: {
 *       show: { params: z.object({ id: z.coerce.number() }), response: Note },
 *       create: { body: z.object({ title: z.string() }), response: Note },
 *     },
 *   }),
 * };
 * const document = createOpenApiDocument(routes, {
 *   info: { title: "Notes", version: "1.0.0" },
 * });
 * const router = createRouter();
 * router.get("/openapi.json", () => Response.json(document));
 * console.log(Object.keys(document.paths)); // ["/notes/{id}", "/notes"]
 * ```
 *
 * @module
 */
import { Route } from "../routes/route.ts";
import type { RouteMap } from "../routes/route_map.ts";
import type { RouteSchemas } from "../routes/schemas.ts";
import {
  expandOptionals,
  type FlatToken,
  parsePattern,
} from "../matcher/pattern.ts";
import type { StandardSchemaV1 } from "../form_validation/standard_schema.ts";

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1). */
export type JsonSchema = Record<string, unknown>;

/** The `info` of an OpenAPI document. */
export interface OpenApiInfo {
  /** The API's title. */
  title: string;
  /** The API's version (of the document, not of OpenAPI). */
  version: string;
  /** A longer description (CommonMark). */
  description?: string;
  /** More `info` fields (`summary`, `contact`, `license`, `x-*`). */
  [field: string]: unknown;
}

/** One entry of `servers`. */
export interface OpenApiServer {
  /** The server's URL, such as `https://api.example.com`. */
  url: string;
  /** What this server is (production, staging, ...). */
  description?: string;
}

/** A parameter of an operation (path or query). */
export interface OpenApiParameter {
  /** The parameter's name. */
  name: string;
  /** Where it goes. */
  in: "path" | "query";
  /** Path parameters are always required. */
  required: boolean;
  /** Its JSON Schema. */
  schema: JsonSchema;
}

/** A request or response body by media type. */
export interface OpenApiContent {
  /** The JSON Schema of a body of this media type. */
  [mediaType: string]: { schema: JsonSchema };
}

/** A response of an operation. */
export interface OpenApiResponse {
  /** What the response means. */
  description: string;
  /** Its body by media type, when known. */
  content?: OpenApiContent;
}

/** One operation: a route. */
export interface OpenApiOperation {
  /** The route's name in the map, as `notes.show`. */
  operationId: string;
  /** The path and query parameters. */
  parameters?: OpenApiParameter[];
  /** The body, for a route with a `body` schema. */
  requestBody?: { required: boolean; content: OpenApiContent };
  /** Responses by status (or range, `2XX`). */
  responses: Record<string, OpenApiResponse>;
}

/**
 * An OpenAPI 3.1 document, as {@linkcode createOpenApiDocument} makes it.
 *
 * @example
 * ```ts
 * import type { OpenApiDocument } from "@fetchkit/toolkit/openapi";
 *
 * const empty: OpenApiDocument = {
 *   openapi: "3.1.0",
 *   info: { title: "Empty", version: "0" },
 *   paths: {},
 * };
 * ```
 */
export interface OpenApiDocument {
  /** The OpenAPI version: `3.1.0`. */
  openapi: "3.1.0";
  /** The API's title, version and description. */
  info: OpenApiInfo;
  /** Where the API is served. */
  servers?: OpenApiServer[];
  /** Operations by path, then by lowercase method. */
  paths: Record<string, Record<string, OpenApiOperation>>;
  /** Shared schemas (the error bodies). */
  components?: { schemas: Record<string, JsonSchema> };
}

/** Options of {@linkcode createOpenApiDocument}. */
export interface OpenApiOptions {
  /** The document's `info`: `title` and `version` at least. */
  info: OpenApiInfo;
  /** The document's `servers`. */
  servers?: OpenApiServer[];
  /**
   * Receives the warning that lists routes whose schemas have no Standard
   * JSON Schema converter (documented as `{}`), and routes for `ANY`
   * method (left out: OpenAPI has no such method). Default `console.warn`.
   */
  onWarning?: (message: string) => void;
}

const METHODS = new Set([
  "GET",
  "PUT",
  "POST",
  "DELETE",
  "OPTIONS",
  "HEAD",
  "PATCH",
  "TRACE",
]);

const ERROR_REF = { $ref: "#/components/schemas/Error" };
const INVALID_REF = { $ref: "#/components/schemas/InvalidInput" };

const COMPONENTS: Record<string, JsonSchema> = {
  Error: {
    type: "object",
    properties: { error: { type: "string" } },
    required: ["error"],
  },
  InvalidInput: {
    type: "object",
    properties: {
      error: { type: "string" },
      fieldErrors: {
        type: "object",
        additionalProperties: { type: "array", items: { type: "string" } },
      },
      formErrors: { type: "array", items: { type: "string" } },
    },
    required: ["error", "fieldErrors", "formErrors"],
  },
};

/**
 * Makes an OpenAPI 3.1 document from a route map:
 *
 * - paths from patterns: `:id` and `*path` become `{id}` and `{path}`, and
 *   a pattern with optional groups gives one path per form (`/feed(.:format)`
 *   gives `/feed.{format}` and `/feed`, the second with operation id
 *   `feed_2`);
 * - operation ids from route names joined with dots (`notes.show`);
 * - parameters: each path parameter (its schema from the `params` schema's
 *   property, else a string), and each property of the `query` schema;
 * - the request body (`application/json`) from the `body` schema;
 * - responses: `2XX` with the `response` schema's output, `400` for
 *   params and query the schemas refuse, `422` for a refused body, and
 *   `400`/`413`/`415` from the body reader.
 *
 * Routes for `ANY` method are left out, with a warning.
 *
 * @example
 * ```ts
 * import { createOpenApiDocument } from "@fetchkit/toolkit/openapi";
 * import { route } from "@fetchkit/toolkit/fetch-router/routes";
 * import * as z from "zod";
 *
 * const routes = route({
 *   search: {
 *     method: "GET",
 *     pattern: "/search",
 *     query: z.object({ q: z.string(), page: z.coerce.number().int().default(1) }),
 *     response: z.array(z.string()),
 *   },
 * });
 * const document = createOpenApiDocument(routes, {
 *   info: { title: "Search", version: "1" },
 *   servers: [{ url: "https://api.example.com" }],
 * });
 * const search = document.paths["/search"].get;
 * console.log(search.parameters?.map((p) => p.name)); // ["q", "page"]
 * ```
 *
 * @param routes The route map the server maps.
 * @param options `info`, and optionally `servers` and `onWarning`.
 * @returns The document, ready for `Response.json(document)`.
 */
export function createOpenApiDocument(
  routes: RouteMap,
  options: OpenApiOptions,
): OpenApiDocument {
  const info = options?.info;
  if (
    typeof info !== "object" || info === null ||
    typeof info.title !== "string" || typeof info.version !== "string"
  ) {
    throw new TypeError(
      "createOpenApiDocument(routes, { info }): info needs a title and a version (strings)",
    );
  }
  const paths: OpenApiDocument["paths"] = {};
  const lacking: string[] = [];
  const anyMethod: string[] = [];
  let usesErrors = false;

  function jsonSchemaOf(
    schema: StandardSchemaV1 | undefined,
    side: "input" | "output",
    where: string,
  ): JsonSchema | undefined {
    if (schema === undefined) return undefined;
    const converter = (schema["~standard"] as {
      jsonSchema?: {
        input?: (options: { target: string }) => JsonSchema;
        output?: (options: { target: string }) => JsonSchema;
      };
    }).jsonSchema;
    const convert = converter?.[side];
    if (typeof convert !== "function") {
      lacking.push(where);
      return {};
    }
    try {
      // deno-lint-ignore no-unused-vars
      const { $schema, ...rest } = convert({ target: "draft-2020-12" });
      return rest;
    } catch (error) {
      lacking.push(`${where}: ${(error as Error)?.message ?? error}`);
      return {};
    }
  }

  function operation(
    name: string,
    route: Route,
    tokens: FlatToken[],
  ): OpenApiOperation {
    const schemas: RouteSchemas = route.schemas ?? {};
    const parameters: OpenApiParameter[] = [];
    const params = jsonSchemaOf(schemas.params, "input", `${name} (params)`);
    const paramProps = propertiesOf(params);
    for (const token of tokens) {
      if (token.type === "text") continue;
      const key = token.name ?? "wildcard";
      parameters.push({
        name: key,
        in: "path",
        required: true,
        schema: paramProps[key] ?? { type: "string" },
      });
    }
    const query = jsonSchemaOf(schemas.query, "input", `${name} (query)`);
    if (query !== undefined) {
      const required = new Set(
        Array.isArray(query.required) ? query.required as string[] : [],
      );
      for (const [key, schema] of Object.entries(propertiesOf(query))) {
        parameters.push({
          name: key,
          in: "query",
          required: required.has(key),
          schema,
        });
      }
    }
    const op: OpenApiOperation = { operationId: name, responses: {} };
    if (parameters.length > 0) op.parameters = parameters;
    const body = jsonSchemaOf(schemas.body, "input", `${name} (body)`);
    if (body !== undefined) {
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: body } },
      };
    }
    const response = jsonSchemaOf(
      schemas.response,
      "output",
      `${name} (response)`,
    );
    op.responses["2XX"] = response === undefined
      ? { description: "Success" }
      : {
        description: "Success",
        content: { "application/json": { schema: response } },
      };
    if (schemas.params !== undefined || schemas.query !== undefined) {
      usesErrors = true;
      op.responses["400"] = {
        description: "Path parameters or query refused by the schema",
        content: { "application/json": { schema: INVALID_REF } },
      };
    }
    if (body !== undefined) {
      usesErrors = true;
      op.responses["400"] ??= {
        description: "Malformed body",
        content: { "application/json": { schema: ERROR_REF } },
      };
      op.responses["413"] = {
        description: "Body too large",
        content: { "application/json": { schema: ERROR_REF } },
      };
      op.responses["415"] = {
        description: "Body is not JSON or a form",
        content: { "application/json": { schema: ERROR_REF } },
      };
      op.responses["422"] = {
        description: "Body refused by the schema",
        content: { "application/json": { schema: INVALID_REF } },
      };
    }
    return op;
  }

  function walk(map: RouteMap, prefix: string): void {
    for (const [key, entry] of Object.entries(map)) {
      const name = prefix + key;
      if (!(entry instanceof Route)) {
        walk(entry, `${name}.`);
        continue;
      }
      if (!METHODS.has(entry.method)) {
        anyMethod.push(`${name} (${entry.method})`);
        continue;
      }
      const method = entry.method.toLowerCase();
      expandOptionals(parsePattern(entry.pattern)).forEach((tokens, index) => {
        const path = pathOf(tokens);
        const item = paths[path] ??= {};
        if (item[method] !== undefined) {
          throw new TypeError(
            `createOpenApiDocument: routes "${
              item[method].operationId
            }" and "${name}" both serve ${entry.method} ${path}`,
          );
        }
        item[method] = operation(
          index === 0 ? name : `${name}_${index + 1}`,
          entry,
          tokens,
        );
      });
    }
  }
  walk(routes, "");

  const warnings: string[] = [];
  if (lacking.length > 0) {
    warnings.push(
      `schemas without a Standard JSON Schema converter (~standard.jsonSchema), documented as {}: ${
        lacking.join(", ")
      }`,
    );
  }
  if (anyMethod.length > 0) {
    warnings.push(
      `routes for a method OpenAPI has no name for, left out: ${
        anyMethod.join(", ")
      }`,
    );
  }
  if (warnings.length > 0) {
    (options.onWarning ?? console.warn)(
      `createOpenApiDocument: ${warnings.join("; ")}`,
    );
  }
  const document: OpenApiDocument = {
    openapi: "3.1.0",
    info: { ...info },
    paths,
  };
  if (options.servers !== undefined) document.servers = options.servers;
  if (usesErrors) document.components = { schemas: COMPONENTS };
  return document;
}

/** An OpenAPI path from one form of a pattern. */
function pathOf(tokens: readonly FlatToken[]): string {
  let path = "";
  for (const token of tokens) {
    path += token.type === "text"
      ? token.value
      : `{${token.name ?? "wildcard"}}`;
  }
  return path || "/";
}

function propertiesOf(
  schema: JsonSchema | undefined,
): Record<string, JsonSchema> {
  const properties = schema?.properties;
  return typeof properties === "object" && properties !== null
    ? properties as Record<string, JsonSchema>
    : {};
}
