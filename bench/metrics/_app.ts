/**
 * The program `instructions.ts` counts: four apps answering
 * `GET /users/:id` in process, our router without and with `metrics()`,
 * Hono without and with `@hono/prometheus`. Talks on stdin/stdout: a line
 * naming an app, "ready" after its warm-up, a line, the counted requests,
 * "done", a line.
 *
 * @module
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { createMetricsRegistry, metrics } from "@fetchkit/toolkit/metrics";
import { Hono } from "hono";
import { prometheus } from "@hono/prometheus";
import { Registry } from "prom-client";
import type { RequestContext } from "@fetchkit/toolkit/fetch-router";

const argv: string[] = (globalThis as { Deno?: { args: string[] } }).Deno
  ?.args ??
  (globalThis as unknown as { process: { argv: string[] } }).process.argv
    .slice(2);
const count = Number(argv[0] ?? 20_000);
const warm = Number(argv[1] ?? 3_000);

type App = { fetch(request: Request): Response | Promise<Response> };

const plain = createRouter();
plain.get("/users/:id", ({ params }) => new Response(`user ${params.id}`));

const registry = createMetricsRegistry();
const measured = createRouter({ middleware: [metrics({ registry })] });
measured.get("/users/:id", ({ params }) => new Response(`user ${params.id}`));

const noop = createRouter({ middleware: [(_context, next) => next()] });
noop.get("/users/:id", ({ params }) => new Response(`user ${params.id}`));

const hono = new Hono();
hono.get("/users/:id", (c) => c.text(`user ${c.req.param("id")}`));

const { registerMetrics } = prometheus({ registry: new Registry() });
const honoMeasured = new Hono();
honoMeasured.use("*", registerMetrics);
honoMeasured.get("/users/:id", (c) => c.text(`user ${c.req.param("id")}`));

const apps: Record<string, App> = {
  ours: plain,
  "ours+metrics": measured,
  "ours+noop": noop,
  hono,
  "hono+prometheus": honoMeasured,
};

// The middleware alone, called as the router (or Hono) calls it, with a
// `next()` that answers one prebuilt response: what it adds per request,
// without the app's allocations (and their garbage collection) around it.
const answer = new Response("user 1");
const next = () => Promise.resolve(answer);
const context = { method: "GET", routePattern: "/users/:id" } as
  & RequestContext
  & { method: string };
const honoContext = {
  req: { method: "GET", routePath: "/users/:id" },
  res: answer,
};
const passThrough = (_context: unknown, next: () => Promise<Response>) =>
  next();
const ourMiddleware = metrics({ registry: createMetricsRegistry() });
const { registerMetrics: honoMiddleware } = prometheus({
  registry: new Registry(),
});
const direct: Record<string, () => Promise<unknown>> = {
  "middleware:none": () => passThrough(context, next),
  "middleware:metrics": () => ourMiddleware(context, next) as Promise<unknown>,
  "middleware:@hono/prometheus": () =>
    (honoMiddleware as unknown as (
      c: unknown,
      next: () => Promise<unknown>,
    ) => Promise<unknown>)(honoContext, next),
};

let n = 0;
async function send(name: string): Promise<void> {
  const run = direct[name];
  if (run !== undefined) {
    await run();
    return;
  }
  const response = await apps[name]!.fetch(
    new Request(`http://127.0.0.1:8000/users/${n++ % 1000}`),
  );
  await response.text();
}

const lines = (async function* () {
  const decoder = new TextDecoder();
  let buffer = "";
  const g = globalThis as unknown as {
    Deno?: { stdin: { readable: AsyncIterable<Uint8Array> } };
    process: { stdin: AsyncIterable<string | Uint8Array> };
  };
  const input = g.Deno?.stdin.readable ?? g.process.stdin;
  for await (const chunk of input) {
    buffer += typeof chunk === "string" ? chunk : decoder.decode(chunk);
    let newline;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
})();
function say(text: string): void {
  const g = globalThis as unknown as {
    Deno?: { stdout: { writeSync(bytes: Uint8Array): number } };
    process: { stdout: { write(text: string): void } };
  };
  if (g.Deno) g.Deno.stdout.writeSync(new TextEncoder().encode(text + "\n"));
  else g.process.stdout.write(text + "\n");
}

for (;;) {
  const { value: name, done } = await lines.next();
  if (done || name === "") break;
  for (let i = 0; i < warm; i++) await send(name);
  say("ready");
  await lines.next();
  for (let i = 0; i < count; i++) await send(name);
  say("done");
  await lines.next();
}
const total = registry.metrics().match(/^http_requests_total\{.*\} (\d+)$/m);
if (Number(total?.[1]) < count && argv[2] !== "direct") {
  throw new Error("metrics() did not count");
}
registry.close();
