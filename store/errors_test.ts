import assert from "node:assert/strict";
import {
  isStoreOutage,
  StoreUnavailableError,
  toStoreError,
  withTimeout,
} from "@fetchkit/toolkit/store";
import { HttpError } from "@fetchkit/toolkit/http-error";

Deno.test("StoreUnavailableError: a hidden 503 with Retry-After", async () => {
  const error = new StoreUnavailableError("Redis", "Redis refused", {
    retryAfterSeconds: 7,
  });
  assert.ok(error instanceof HttpError);
  assert.equal(error.status, 503);
  assert.equal(error.expose, false);
  assert.equal(error.store, "Redis");
  const response = error.toResponse();
  assert.equal(response.headers.get("retry-after"), "7");
  assert.equal(response.headers.get("cache-control"), "no-store");
  assert.equal(await response.text(), "Service Unavailable");
});

Deno.test("isStoreOutage: by what the error says, not its class", () => {
  const outages: unknown[] = [
    new TypeError("database or disk is full"),
    new Error("database is locked"),
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:1"), {
      code: "ECONNREFUSED",
    }),
    Object.assign(new Error("x"), { name: "ClientClosedError" }),
    Object.assign(new Error("x"), { name: "ConnectionRefused" }),
    Object.assign(new Error("Database closed"), { name: "BadResource" }),
    new Error("The client is closed"),
    new Error("The client is offline"),
    Object.assign(new Error("Bad resource ID"), { name: "BadResource" }),
    new Error("Socket closed unexpectedly"),
    new Error("wrapped", { cause: new TypeError("database or disk is full") }),
    new StoreUnavailableError("KV", "down"),
  ];
  for (const error of outages) assert.equal(isStoreOutage(error), true);
  const bugs: unknown[] = [
    new TypeError("Cannot read properties of undefined"),
    new RangeError("Session too large: 70000 bytes (limit 65536)"),
    new Error("NOSCRIPT No matching script"),
    "database is locked",
    null,
  ];
  for (const error of bugs) assert.equal(isStoreOutage(error), false);
});

Deno.test("toStoreError: wraps outages, returns the rest unchanged", () => {
  const full = new TypeError("database or disk is full");
  const wrapped = toStoreError(full, "Deno KV");
  assert.ok(wrapped instanceof StoreUnavailableError);
  assert.equal(wrapped.cause, full);
  assert.match(wrapped.message, /Deno KV failed: database or disk is full/);
  const bug = new TypeError("x is not a function");
  assert.equal(toStoreError(bug, "Deno KV"), bug);
  const already = new StoreUnavailableError("Redis", "down");
  assert.equal(toStoreError(already, "Deno KV"), already);
});

Deno.test("withTimeout: a slow call is a StoreUnavailableError naming the limit", async () => {
  await assert.rejects(
    withTimeout(() => new Promise(() => {}), 20, {
      store: "Redis",
      what: "read session",
    }),
    (error: unknown) =>
      error instanceof StoreUnavailableError &&
      error.message === "Redis did not answer within 20 ms (read session)",
  );
  assert.equal(
    await withTimeout(() => Promise.resolve(42), 1000, { store: "Redis" }),
    42,
  );
  const bug = new RangeError("too big");
  await assert.rejects(
    withTimeout(() => Promise.reject(bug), 1000, { store: "Redis" }),
    (error: unknown) => error === bug,
  );
  await assert.rejects(
    withTimeout(
      () => Promise.reject(new Error("connect ECONNREFUSED 127.0.0.1:1")),
      1000,
      { store: "Redis" },
    ),
    StoreUnavailableError,
  );
});
