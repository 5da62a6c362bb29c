/**
 * Per-request overhead of `logger()`: the same router with and without it,
 * `log` a no-op so that only the logger's own work is measured. Hono's
 * logger, on the same kind of app, runs in the same process as the peer.
 *
 * Run: deno bench --allow-all bench/logger/logger_bench.ts
 * The overhead is the difference of the two means within a group.
 */
import { median } from "../_stats.ts";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { Hono } from "hono";
import { logger as honoLogger } from "hono/logger";

const noop = (): void => {};
const handler = (): Response => new Response("ok");
const request = new Request("http://localhost/users/123?tab=posts", {
  headers: { "User-Agent": "bench" },
});

const plain = createRouter();
plain.get("/users/:id", handler);

const logged = createRouter({ middleware: [logger({ log: noop })] });
logged.get("/users/:id", handler);

// The cost of any router middleware, so the logger's own share shows.
const passThrough = createRouter({ middleware: [(_context, next) => next()] });
passThrough.get("/users/:id", handler);

const loggedFull = createRouter({
  middleware: [
    logger({
      format:
        '%hostname - - [%date] "%method %path" %status %contentLength "%referer" "%userAgent" %duration',
      log: noop,
    }),
  ],
});
loggedFull.get("/users/:id", handler);

const honoPlain = new Hono();
honoPlain.get("/users/:id", handler);

const honoLogged = new Hono();
honoLogged.use(honoLogger(noop));
honoLogged.get("/users/:id", handler);

// Answers must be right, or the numbers mean nothing.
for (
  const app of [plain, passThrough, logged, loggedFull, honoPlain, honoLogged]
) {
  const response = await app.fetch(request);
  if (response.status !== 200 || await response.text() !== "ok") {
    throw new Error("bench app does not answer 200 ok");
  }
}

Deno.bench({
  name: "fetchkit router",
  group: "fetchkit",
  baseline: true,
  async fn() {
    await plain.fetch(request);
  },
});

Deno.bench({
  name: "fetchkit router + pass-through middleware",
  group: "fetchkit",
  async fn() {
    await passThrough.fetch(request);
  },
});

Deno.bench({
  name: "fetchkit router + logger() default format",
  group: "fetchkit",
  async fn() {
    await logged.fetch(request);
  },
});

Deno.bench({
  name: "fetchkit router + logger() combined-style format",
  group: "fetchkit",
  async fn() {
    await loggedFull.fetch(request);
  },
});

Deno.bench({
  name: "hono",
  group: "hono",
  baseline: true,
  async fn() {
    await honoPlain.fetch(request);
  },
});

Deno.bench({
  name: "hono + hono/logger",
  group: "hono",
  async fn() {
    await honoLogged.fetch(request);
  },
});

// `deno run -A bench/logger/logger_bench.ts` (Deno.bench is a no-op there) measures
// the overheads as paired differences instead: batches of the base app and
// the app with a logger alternate, so both see the same machine load, and
// the median of the per-round differences is printed. On noisy machines this
// is steadier than comparing the means of two separate benches.
if (import.meta.main) {
  type App = { fetch(request: Request): Response | Promise<Response> };
  const batch = 5_000;
  const rounds = 41;

  const nsPerRequest = async (app: App): Promise<number> => {
    const start = performance.now();
    for (let i = 0; i < batch; i++) await app.fetch(request);
    return (performance.now() - start) * 1e6 / batch;
  };
  const overhead = async (base: App, subject: App): Promise<number> => {
    const differences: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate the order so that drift within a round cancels out.
      if (round % 2 === 0) {
        const a = await nsPerRequest(base);
        differences.push(await nsPerRequest(subject) - a);
      } else {
        const b = await nsPerRequest(subject);
        differences.push(b - await nsPerRequest(base));
      }
    }
    return median(differences);
  };

  for (
    const app of [plain, passThrough, logged, loggedFull, honoPlain, honoLogged]
  ) {
    for (let i = 0; i < 4; i++) await nsPerRequest(app); // warm up
  }
  const rows: [string, App, App][] = [
    ["fetchkit: pass-through middleware", plain, passThrough],
    ["fetchkit: logger() default format", plain, logged],
    ["fetchkit: logger() combined-style format", plain, loggedFull],
    ["hono: hono/logger", honoPlain, honoLogged],
  ];
  console.log("overhead per request (median of paired differences, ns)");
  for (const [name, base, subject] of rows) {
    console.log(
      `${name.padEnd(42)} ${(await overhead(base, subject)).toFixed(0)}`,
    );
  }
}
