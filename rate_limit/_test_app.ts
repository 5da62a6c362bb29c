// Test helper: a router behind rate limiters, and connection info from a
// client address, for the rate-limit tests.
import { createRouter, type ServeInfo } from "@fetchkit/toolkit/fetch-router";
import type { rateLimit } from "@fetchkit/toolkit/rate-limit-middleware";

/** Connection info as `Deno.serve` gives it, from `hostname`. */
export function from(hostname: string): ServeInfo {
  return { remoteAddr: { hostname, port: 1234, transport: "tcp" } };
}

/**
 * A router with `limiters` in front of `/` (text) and `/away` (a redirect,
 * whose headers are immutable); the result sends one GET from `info`
 * (`null`: no connection info at all).
 */
export function app(
  ...limiters: ReturnType<typeof rateLimit>[]
): (info?: ServeInfo | null, path?: string) => Promise<Response> {
  const router = createRouter({ middleware: limiters });
  router.get("/", () => new Response("ok"));
  router.get("/away", () => Response.redirect("http://localhost/", 302));
  return (info: ServeInfo | null = from("192.0.2.1"), path = "/") =>
    Promise.resolve(
      router.fetch(new Request("http://localhost" + path), info ?? undefined),
    );
}
