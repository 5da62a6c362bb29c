// A browser for the provider sign-in tests: the app in process, the
// OpenID Provider over HTTP.
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { Agent } from "../../oauth/_test_agent.ts";
import { ORIGIN } from "./_test_app.ts";

let addresses = 0;

/**
 * A new browser whose requests to {@linkcode ORIGIN} go to `router` from
 * its own address (10.8.0.1, 10.8.0.2, ...), as same-origin fetches.
 */
export function browser(router: Router): Agent {
  const info = {
    remoteAddr: {
      transport: "tcp" as const,
      hostname: `10.8.0.${++addresses}`,
      port: 50000,
    },
  };
  return new Agent().route(ORIGIN, async (request) => {
    const headers = new Headers(request.headers);
    headers.set("sec-fetch-site", "same-origin");
    return await router.fetch(new Request(request, { headers }), info);
  });
}
