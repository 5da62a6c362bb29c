// Form body errors are HttpErrors: one rule answers every body error.
import assert from "node:assert/strict";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  FormDataLimitError,
  FormDataParseError,
  FormDataTimeoutError,
  MaxFieldsExceededError,
  MaxFieldSizeExceededError,
  MaxFilesExceededError,
  MaxFileSizeExceededError,
  MaxHeaderSizeExceededError,
  MaxTotalSizeExceededError,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";

Deno.test("form errors are HttpErrors with their status, names and fields", () => {
  const part = { fieldName: "f", fileName: "a.txt" };
  const cases: [HttpError, number, string][] = [
    [new FormDataParseError("bad", part), 400, "FormDataParseError"],
    [new FormDataTimeoutError(10, part), 408, "FormDataTimeoutError"],
    [
      new FormDataLimitError("maxFiles", 1, "too many"),
      413,
      "FormDataLimitError",
    ],
    [new MaxFileSizeExceededError(1, part), 413, "MaxFileSizeExceededError"],
    [new MaxFilesExceededError(1, part), 413, "MaxFilesExceededError"],
    [new MaxFieldSizeExceededError(1, part), 413, "MaxFieldSizeExceededError"],
    [new MaxFieldsExceededError(1, part), 413, "MaxFieldsExceededError"],
    [new MaxHeaderSizeExceededError(1, 2), 413, "MaxHeaderSizeExceededError"],
    [new MaxTotalSizeExceededError(1), 413, "MaxTotalSizeExceededError"],
  ];
  for (const [error, status, name] of cases) {
    assert.ok(error instanceof HttpError, name);
    assert.ok(error instanceof FormDataParseError, name);
    assert.equal(error.status, status, name);
    assert.equal(error.name, name);
    assert.equal(error.expose, true, name);
  }
  const timeout = new FormDataTimeoutError(10, part, "bodyTimeout");
  assert.equal(timeout.fieldName, "f");
  assert.equal(timeout.fileName, "a.txt");
  assert.equal(timeout.limit, "bodyTimeout");
  assert.equal(timeout.timeout, 10);
  const cause = new Error("x");
  assert.equal(new FormDataParseError("m", { cause }).cause, cause);
});

Deno.test("a form error thrown by a handler is answered by the router with its status", async () => {
  const router = createRouter();
  router.post("/", async ({ request }) => {
    await parseFormData(request, { maxFieldSize: 3 });
    return new Response("parsed");
  });
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      headers: { accept: "application/json" },
      body: new URLSearchParams({ title: "too long" }),
    }),
  );
  assert.equal(response.status, 413);
  assert.deepEqual(await response.json(), {
    error: 'Field "title" is larger than maxFieldSize (3 bytes)',
  });
});
