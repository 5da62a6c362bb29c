// The small runtime shims, on whichever runtime runs this file (Deno here;
// Node and Bun through _tools/runtimes/runtimes_test.ts).
import assert from "node:assert/strict";
import process from "node:process";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { stdoutIsColorTerminal } from "./color.ts";
import { refTimer, unrefTimer } from "./timer.ts";
import { PackageResponse } from "./response.ts";

// What node:process says, which all three runtimes provide.
const colorTerminal = !process.env.NO_COLOR && process.stdout.isTTY === true;

Deno.test("stdoutIsColorTerminal agrees with NO_COLOR and process.stdout.isTTY", () => {
  assert.equal(stdoutIsColorTerminal(), colorTerminal);
});

Deno.test("logger() with default options logs one plain line", async () => {
  const lines: unknown[] = [];
  const original = console.log;
  console.log = (...args: unknown[]) => lines.push(args.join(" "));
  try {
    const router = createRouter({ middleware: [logger()] });
    router.get("/hello", () => new Response("hi"));
    const response = await router.fetch(new Request("http://localhost/hello"));
    await response.text();
  } finally {
    console.log = original;
  }
  assert.equal(lines.length, 1);
  assert.match(String(lines[0]), /GET \/hello 200/);
  const colored = String(lines[0]).includes("\u001b[");
  assert.equal(colored, colorTerminal, "colour only on a colour terminal");
});

Deno.test("an unref'd timer still fires while the program runs; ref restores it", async () => {
  let fired = 0;
  const first = setTimeout(() => fired++, 1);
  unrefTimer(first);
  const second = setTimeout(() => fired++, 1);
  unrefTimer(second);
  refTimer(second);
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(fired, 2);
});

Deno.test("the package's Response class builds Responses that pass instanceof", async () => {
  const response = new PackageResponse("body", { status: 201 });
  assert.ok(response instanceof Response);
  assert.ok(response instanceof PackageResponse);
  assert.ok(new Response("x") instanceof PackageResponse);
  assert.equal(response.status, 201);
  assert.equal(await response.text(), "body");
  const json = PackageResponse.json({ a: 1 });
  assert.deepEqual(await json.json(), { a: 1 });
});
