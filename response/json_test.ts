import assert from "node:assert/strict";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";

Deno.test("createJsonResponse serializes data with the JSON content type", async () => {
  const response = createJsonResponse({ id: 1, tags: ["a"] });
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("Content-Type"),
    "application/json; charset=utf-8",
  );
  assert.equal(await response.text(), '{"id":1,"tags":["a"]}');
});

Deno.test("createJsonResponse sends null and primitives", async () => {
  assert.equal(await createJsonResponse(null).text(), "null");
  assert.equal(await createJsonResponse("x").text(), '"x"');
});

Deno.test("createJsonResponse uses init and keeps a given Content-Type", () => {
  const response = createJsonResponse([], {
    status: 201,
    headers: { "Content-Type": "application/problem+json" },
  });
  assert.equal(response.status, 201);
  assert.equal(
    response.headers.get("Content-Type"),
    "application/problem+json",
  );
});

Deno.test("createJsonResponse throws a TypeError for undefined", () => {
  assert.throws(() => createJsonResponse(undefined), TypeError);
  assert.throws(() => createJsonResponse(() => {}), /function/);
});
