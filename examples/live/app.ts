/**
 * A live counter over server-sent events: the server counts up once a
 * `intervalMs`, and every open page shows each new value as it comes.
 * It also shows the production middleware together: request ids, a log
 * line with the client address, security headers with a nonce-based
 * Content-Security-Policy, and a rate limit on opening streams.
 *
 * @module
 */

import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import {
  createEventStreamResponse,
  type ServerSentEvent,
} from "@fetchkit/toolkit/response/event-stream";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { requestId } from "@fetchkit/toolkit/request-id-middleware";
import {
  CspNonce,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";

/** Options of {@linkcode createLiveApp}. */
export interface LiveAppOptions {
  /** How often the counter goes up. Default 1000 ms. */
  intervalMs?: number;
  /** Where log lines go. Default `console.log`. */
  log?: (line: string) => void;
}

/** The app: its router, and how many streams are open (for tests). */
export interface LiveApp {
  /** Serve with `Deno.serve(app.fetch)`. */
  fetch: Router["fetch"];
  /** Streams whose source is still running. */
  openStreams(): number;
}

/** Builds the live counter app. */
export function createLiveApp(options: LiveAppOptions = {}): LiveApp {
  const { intervalMs = 1000, log = console.log } = options;
  let count = 0;
  let open = 0;
  let timer: ReturnType<typeof setInterval> | undefined;
  const ticks = new EventTarget();

  // The counter runs only while someone watches.
  function watch(): void {
    open++;
    timer ??= setInterval(() => {
      count++;
      ticks.dispatchEvent(new Event("tick"));
    }, intervalMs);
  }
  function unwatch(): void {
    open--;
    if (open === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  /** Each value after `after`, until `signal` aborts (the client left). */
  async function* counter(
    after: number,
    signal: AbortSignal,
  ): AsyncGenerator<ServerSentEvent> {
    watch();
    let wake = () => {};
    const onTick = () => wake();
    ticks.addEventListener("tick", onTick);
    signal.addEventListener("abort", onTick);
    try {
      let last = after;
      while (!signal.aborted) {
        if (count > last) {
          last = count;
          yield { id: count, event: "count", data: String(count) };
        } else {
          await new Promise<void>((resolve) => wake = resolve);
        }
      }
    } finally {
      ticks.removeEventListener("tick", onTick);
      signal.removeEventListener("abort", onTick);
      unwatch();
    }
  }

  const router = createRouter({
    middleware: [
      requestId(),
      logger({ format: "%ip %requestId %method %path %status", log }),
      secureHeaders({
        contentSecurityPolicy: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'nonce'"],
          styleSrc: ["'nonce'"],
          connectSrc: ["'self'"],
          objectSrc: ["'none'"],
          baseUri: ["'none'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
        },
      }),
    ],
  });

  router.get("/", ({ get }) => {
    const nonce = get(CspNonce);
    return createHtmlResponse(html`
      <!doctype html>
      <html lang="en">
        <head>
          <meta charset="utf-8">
          <title>Live counter</title>
          <style nonce="${nonce}">
        body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem auto; max-width: 32rem; }
        output { font-size: 4rem; font-variant-numeric: tabular-nums; }
        #status { color: #666; }
      </style>
        </head>
        <body>
          <h1>Live counter</h1>
          <p><output id="count">-</output></p>
          <p id="status">connecting...</p>
          <ol id="log" reversed></ol>
          <script nonce="${nonce}">
        const source = new EventSource("/events");
        const status = document.getElementById("status");
        source.addEventListener("open", () => status.textContent = "live");
        source.addEventListener("error", () => status.textContent = "reconnecting...");
        source.addEventListener("count", (event) => {
          document.getElementById("count").textContent = event.data;
          const item = document.createElement("li");
          item.textContent = "count " + event.data + " (id " + event.lastEventId + ")";
          document.getElementById("log").prepend(item);
        });
      </script>
        </body>
      </html>
    `);
  });

  // No icon: an empty answer rather than a 404 in the browser console.
  router.get("/favicon.ico", () => new Response(null, { status: 204 }));

  router.get(
    "/events",
    // Opening streams is limited per address; the open streams are not.
    rateLimit({ name: "streams", limit: 30, windowMs: 60_000 }),
    ({ request }) => {
      // A reconnecting EventSource says what it saw last: resume after it.
      const last = Number(request.headers.get("Last-Event-ID") ?? "-1");
      const after = Number.isSafeInteger(last) ? last : -1;
      // The signal aborts when the stream ends (the page was closed).
      return createEventStreamResponse((signal) => counter(after, signal));
    },
  );

  return { fetch: router.fetch, openStreams: () => open };
}
