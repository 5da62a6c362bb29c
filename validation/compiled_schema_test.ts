// Portable tests of `fromJsonSchema` with the real Ajv (no Deno API but
// Deno.test).
import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { Route } from "@fetchkit/toolkit/fetch-router/routes";
import { fromJsonSchema, parseJson } from "@fetchkit/toolkit/validation";
import { assertHttpError, jsonRequest } from "./_test_utils.ts";

interface Order {
  customer: { name: string };
  items: { sku: string; qty: number }[];
  note?: string;
}

function compileOrder() {
  // Fastify's default Ajv options.
  const ajv = new Ajv({
    coerceTypes: "array",
    useDefaults: true,
    removeAdditional: true,
    allErrors: false,
  });
  return ajv.compile<Order>({
    type: "object",
    required: ["customer", "items"],
    properties: {
      customer: {
        type: "object",
        required: ["name"],
        properties: { name: { type: "string", minLength: 1 } },
      },
      items: {
        type: "array",
        minItems: 1,
        items: {
          type: "object",
          required: ["sku", "qty"],
          additionalProperties: false,
          properties: {
            sku: { type: "string", minLength: 1 },
            qty: { type: "integer", minimum: 1 },
          },
        },
      },
      note: { type: "string", nullable: true, default: "none" },
    },
  });
}

Deno.test("fromJsonSchema: Ajv's output (coerced, defaults, extra keys removed) is the value", async () => {
  const Order = fromJsonSchema(compileOrder());
  assert.equal(Order["~standard"].vendor, "ajv");
  const result = await parseJson(
    jsonRequest(
      '{"customer": {"name": "Ada"}, "items": [{"sku": "A", "qty": "2", "x": 1}]}',
    ),
    Order,
  );
  assert.ok(result.success);
  assert.deepEqual(result.value, {
    customer: { name: "Ada" },
    items: [{ sku: "A", qty: 2 }],
    note: "none",
  });
});

Deno.test("fromJsonSchema: errors become issues keyed by field (index as a number, a missing property named)", async () => {
  const Order = fromJsonSchema(compileOrder());
  const bad = await parseJson(
    jsonRequest('{"customer": {"name": "Ada"}, "items": [{"sku": "A"}]}'),
    Order,
  );
  assert.ok(!bad.success);
  assert.deepEqual(bad.issues.map((issue) => issue.path), [[
    "items",
    0,
    "qty",
  ]]);
  assert.deepEqual({ ...bad.fieldErrors }, {
    "items[0].qty": ["must have required property 'qty'"],
  });
  const low = await parseJson(
    jsonRequest(
      '{"customer": {"name": "Ada"}, "items": [{"sku": "A", "qty": 0}]}',
    ),
    Order,
  );
  assert.ok(!low.success);
  assert.deepEqual({ ...low.fieldErrors }, {
    "items[0].qty": ["must be >= 1"],
  });
  // The top-level value: a form error.
  const root = await parseJson(jsonRequest("[1]"), Order);
  assert.ok(!root.success);
  assert.deepEqual(root.formErrors, ["must be object"]);
});

Deno.test("fromJsonSchema: a key with / and ~ is unescaped from the JSON Pointer", () => {
  const ajv = new Ajv();
  const schema = fromJsonSchema(ajv.compile({
    type: "object",
    properties: { "a/b~c": { type: "number" } },
  }));
  const result = schema["~standard"].validate({ "a/b~c": "x" });
  assert.ok(!(result instanceof Promise) && result.issues !== undefined);
  assert.deepEqual(result.issues[0].path, ["a/b~c"]);
});

Deno.test("fromJsonSchema: an async schema ($async) is awaited; its errors are issues, other rejections rethrown", async () => {
  const ajv = new Ajv();
  const schema = fromJsonSchema(ajv.compile<{ n: number }>({
    $async: true,
    type: "object",
    required: ["n"],
    properties: { n: { type: "number" } },
  }));
  const good = await parseJson(jsonRequest('{"n": 1}'), schema);
  assert.ok(good.success);
  assert.deepEqual(good.value, { n: 1 });
  const bad = await parseJson(jsonRequest("{}"), schema);
  assert.ok(!bad.success);
  assert.deepEqual({ ...bad.fieldErrors }, {
    n: ["must have required property 'n'"],
  });
  const failing = fromJsonSchema<unknown>(
    Object.assign(() => Promise.reject(new Error("store down")), {
      errors: null,
    }),
  );
  await assert.rejects(
    Promise.resolve(failing["~standard"].validate(1)),
    /store down/,
  );
});

Deno.test("fromJsonSchema: a route's body schema; every JSON refusal still comes first", async () => {
  const router = createRouter();
  router.post(
    new Route("POST", "/orders", { body: fromJsonSchema(compileOrder()) }),
    ({ input }) => Response.json({ items: input.body.items.length }),
  );
  const post = (body: string) =>
    router.fetch(
      new Request("http://localhost/orders", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      }),
    );
  const ok = await post(
    '{"customer": {"name": "Ada"}, "items": [{"sku": "A", "qty": 1}]}',
  );
  assert.equal(ok.status, 200);
  assert.deepEqual(await ok.json(), { items: 1 });
  const invalid = await post('{"customer": {"name": "Ada"}, "items": []}');
  assert.equal(invalid.status, 422);
  await invalid.body?.cancel();
  // Ajv's removeAdditional would drop it; the parse refuses it first.
  await assertHttpError(
    parseJson(
      jsonRequest(
        '{"customer": {"name": "Ada"}, "items": [{"sku": "A", "qty": 1}], "__proto__": {"x": 1}}',
      ),
      fromJsonSchema(compileOrder()),
    ),
    400,
    /JSON key "__proto__" is refused/,
  );
});
