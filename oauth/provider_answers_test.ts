// What the provider answers, taken as an attacker or an outage would
// shape it: an ID token issued in the future, redirects on the token,
// userinfo, JWKS and discovery requests (never followed: the code, the
// PKCE verifier and a secret in the body would go with them), answers
// over 1 MiB, a body that stalls after its headers, a 500 with an error
// body, a 200 of `null`, and a callback with a parameter twice.
// Portable: runs on Deno, Node and Bun.
import assert from "node:assert/strict";
import { serve } from "@fetchkit/toolkit/serve";
import {
  type OAuthClient,
  type OAuthClientOptions,
  OAuthError,
} from "@fetchkit/toolkit/oauth";
import { github } from "@fetchkit/toolkit/oauth";
import { APP_ORIGIN, oauthApp } from "./_test_app.ts";
import { Agent } from "./_test_agent.ts";
import { type TestIssuer, withIssuer } from "./_test_issuer.ts";

type App = ReturnType<typeof oauthApp>["app"];
type Options = Omit<OAuthClientOptions, "session" | "redirectUri">;

function agentFor(app: App): Agent {
  return new Agent().route(
    APP_ORIGIN,
    async (request) => await app.fetch(request),
  );
}

/** A server elsewhere that records what reaches it. */
async function withElsewhere(
  fn: (origin: string, seen: string[]) => Promise<void>,
): Promise<void> {
  const seen: string[] = [];
  const server = serve(async (request) => {
    seen.push(
      `${request.method} ${new URL(request.url).pathname} ${await request
        .text()} ${request.headers.get("authorization") ?? ""}`,
    );
    return Response.json({ access_token: "stolen", keys: [], sub: "x" });
  }, { hostname: "127.0.0.1", port: 0, handleSignals: false });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, seen);
  } finally {
    await server.shutdown();
  }
}

function oidcOptions(issuer: TestIssuer, extra: Partial<Options> = {}) {
  return {
    issuer: issuer.issuer,
    clientId: issuer.clientId,
    clientSecret: issuer.clientSecret,
    ...extra,
  } as Options;
}

function githubOptions(issuer: TestIssuer, extra: Partial<Options> = {}) {
  return {
    ...github({ baseUrl: issuer.issuer, apiUrl: issuer.issuer }),
    clientId: issuer.clientId,
    clientSecret: issuer.clientSecret,
    ...extra,
  } as Options;
}

interface Outcome {
  /** The status the app answered /login or the callback with. */
  status: number;
  /** What callback() threw, if it got that far. */
  thrown?: unknown;
  /** What callback() returned. */
  result?: unknown;
}

/** One sign-in, callback() caught: what it threw or returned. */
async function attempt(
  options: Options,
  tweak: (callback: URL) => void = () => {},
): Promise<Outcome> {
  const { app, client } = oauthApp(options);
  const outcome: Outcome = { status: 0 };
  catching(app, client, outcome);
  const agent = agentFor(app);
  const start = await agent.request(`${APP_ORIGIN}/login`);
  if (start.status !== 302) {
    await start.body?.cancel();
    outcome.status = start.status;
    return outcome;
  }
  const { url } = await agent.follow(
    start.headers.get("Location")!,
    APP_ORIGIN,
  );
  url.pathname = "/callback-caught";
  tweak(url);
  const response = await agent.request(url);
  outcome.status = response.status;
  await response.body?.cancel();
  return outcome;
}

function catching(app: App, client: OAuthClient, outcome: Outcome): void {
  app.get("/callback-caught", async (context) => {
    try {
      outcome.result = await client.callback(context);
      return new Response(null, { status: 204 });
    } catch (error) {
      outcome.thrown = error;
      return new Response(null, { status: 599 });
    }
  });
}

function assertBadGateway(outcome: Outcome, message: RegExp): void {
  const thrown = outcome.thrown;
  assert.ok(thrown !== undefined, `no error: ${JSON.stringify(outcome)}`);
  assert.ok(!(thrown instanceof OAuthError), String(thrown));
  assert.equal((thrown as { status?: number }).status, 502, String(thrown));
  assert.match(String(thrown), message);
}

Deno.test("oauth: an ID token issued in the future (past the clock tolerance) is refused; within it, accepted", () =>
  withIssuer(async (issuer) => {
    for (const ahead of [50, 365 * 24 * 3600]) {
      issuer.fault = { iatIn: ahead, expiresIn: ahead + 600 };
      const outcome = await attempt(oidcOptions(issuer));
      assert.ok(outcome.thrown instanceof OAuthError, `${ahead} s ahead`);
      assert.equal(outcome.thrown.reason, "id_token");
      assert.match(outcome.thrown.message, /issued in the future/);
    }
    issuer.fault = { iatIn: 20 };
    const within = await attempt(oidcOptions(issuer));
    assert.equal(within.status, 204, String(within.thrown));
    issuer.fault = { iatIn: 5 };
    const strict = await attempt(oidcOptions(issuer, { clockTolerance: 0 }));
    assert.ok(strict.thrown instanceof OAuthError);
  }));

Deno.test("oauth: a redirect from the token endpoint is a 502; the code, verifier and secret do not follow it", () =>
  withIssuer((issuer) =>
    withElsewhere(async (elsewhere, seen) => {
      for (const status of [307, 308, 302]) {
        issuer.override = (_request, url) =>
          url.pathname === "/token"
            ? new Response(null, {
              status,
              headers: { Location: `${elsewhere}/steal` },
            })
            : undefined;
        const outcome = await attempt(
          oidcOptions(issuer, {
            tokenEndpointAuthMethod: "client_secret_post",
          }),
        );
        assertBadGateway(outcome, /redirect/);
        assert.deepEqual(seen, [], `${status}: ${seen.join("\n")}`);
      }
    })
  ));

Deno.test("oauth: redirects on discovery, JWKS and the user API are 502s, never followed", () =>
  withIssuer((issuer) =>
    withElsewhere(async (elsewhere, seen) => {
      const away = (path: string) => (_request: Request, url: URL) =>
        url.pathname === path
          ? new Response(null, {
            status: 302,
            headers: { Location: `${elsewhere}${path}` },
          })
          : undefined;

      issuer.override = away("/.well-known/openid-configuration");
      const discovery = await attempt(oidcOptions(issuer));
      assert.equal(discovery.status, 502);

      issuer.override = away("/jwks");
      assertBadGateway(await attempt(oidcOptions(issuer)), /jwks|redirect/);

      issuer.override = away("/user");
      assertBadGateway(await attempt(githubOptions(issuer)), /redirect/);

      // OpenID userinfo: read when the ID token has no email.
      issuer.user = { sub: "user-1" };
      issuer.override = away("/userinfo");
      assertBadGateway(await attempt(oidcOptions(issuer)), /redirect/);
      assert.deepEqual(seen, []);
    })
  ));

/** A JSON body of 2 MiB, streamed in chunks (no Content-Length). */
function hugeStream(): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode("a".repeat(64 * 1024));
  let sent = 0;
  return new ReadableStream({
    start(controller) {
      controller.enqueue(
        new TextEncoder().encode(
          '{"access_token":"x","keys":[],"sub":"user-1","pad":"',
        ),
      );
    },
    pull(controller) {
      if (sent++ < 32) controller.enqueue(chunk);
      else {
        controller.enqueue(new TextEncoder().encode('"}'));
        controller.close();
      }
    },
  });
}

Deno.test("oauth: provider answers over 1 MiB are 502s, declared or streamed (discovery, JWKS, token, user API)", () =>
  withIssuer(async (issuer) => {
    const huge =
      (path: string, declared: boolean) => (_request: Request, url: URL) =>
        url.pathname === path
          ? declared
            ? Response.json({ pad: "a".repeat(2 * 1024 * 1024) })
            : new Response(hugeStream(), {
              headers: { "Content-Type": "application/json" },
            })
          : undefined;
    for (const declared of [true, false]) {
      issuer.override = huge("/.well-known/openid-configuration", declared);
      assert.equal((await attempt(oidcOptions(issuer))).status, 502);
      issuer.override = huge("/token", declared);
      assertBadGateway(await attempt(oidcOptions(issuer)), /1 MiB/);
      issuer.override = huge("/jwks", declared);
      assertBadGateway(await attempt(oidcOptions(issuer)), /1 MiB/);
      issuer.override = huge("/user", declared);
      assertBadGateway(await attempt(githubOptions(issuer)), /1 MiB/);
    }
  }));

Deno.test("oauth: a provider that stalls after its headers (token, JWKS, discovery) is a 502 at the deadline, not a 500", () =>
  withIssuer(async (issuer) => {
    const stalled: ReadableStreamDefaultController<Uint8Array>[] = [];
    const stall = (path: string) => (_request: Request, url: URL) =>
      url.pathname === path
        ? new Response(
          new ReadableStream<Uint8Array>({
            start(controller) {
              stalled.push(controller);
              controller.enqueue(new TextEncoder().encode('{"access_'));
            },
          }),
          { headers: { "Content-Type": "application/json" } },
        )
        : undefined;
    try {
      for (const path of ["/token", "/jwks"]) {
        issuer.override = stall(path);
        const started = Date.now();
        const outcome = await attempt(
          oidcOptions(issuer, { providerTimeout: 0.5 }),
        );
        assertBadGateway(outcome, /within 0.5 s|broke off/);
        assert.ok(Date.now() - started < 5000, path);
      }
      issuer.override = stall("/.well-known/openid-configuration");
      const discovery = await attempt(
        oidcOptions(issuer, { providerTimeout: 0.5 }),
      );
      assert.equal(discovery.status, 502);
    } finally {
      for (const controller of stalled) {
        try {
          controller.close();
        } catch {
          // Cancelled already.
        }
      }
    }
  }));

Deno.test("oauth: a token endpoint answering 5xx with an error body is an outage (502), not a refusal (400)", () =>
  withIssuer(async (issuer) => {
    for (
      const [status, error] of [
        [500, "server_error"],
        [503, "temporarily_unavailable"],
      ] as const
    ) {
      issuer.override = (_request, url) =>
        url.pathname === "/token"
          ? Response.json({ error }, { status })
          : undefined;
      assertBadGateway(
        await attempt(oidcOptions(issuer)),
        new RegExp(String(status)),
      );
    }
    // A 400 with an OAuth error is still the sign-in's refusal.
    issuer.override = undefined;
    issuer.fault = { tokenError: "invalid_grant" };
    const refused = await attempt(oidcOptions(issuer));
    assert.ok(refused.thrown instanceof OAuthError);
    assert.equal(refused.thrown.reason, "code");
  }));

Deno.test("oauth: a 200 whose body is null or not an object is a 502 (token, user API, discovery)", () =>
  withIssuer(async (issuer) => {
    for (const body of ["null", "42", '"text"', "true"]) {
      const answer = (path: string) => (_request: Request, url: URL) =>
        url.pathname === path
          ? new Response(body, {
            headers: { "Content-Type": "application/json" },
          })
          : undefined;
      issuer.override = answer("/token");
      assertBadGateway(await attempt(oidcOptions(issuer)), /token|JSON/);
      issuer.override = answer("/user");
      assertBadGateway(await attempt(githubOptions(issuer)), /user/);
      issuer.override = answer("/.well-known/openid-configuration");
      assert.equal((await attempt(oidcOptions(issuer))).status, 502);
    }
  }));

Deno.test("oauth: a callback with state, code, iss or error twice is refused (RFC 6749 §3.1)", () =>
  withIssuer(async (issuer) => {
    for (const name of ["state", "code", "iss"]) {
      const outcome = await attempt(oidcOptions(issuer), (url) => {
        url.searchParams.append(name, url.searchParams.get(name)!);
      });
      assert.ok(outcome.thrown instanceof OAuthError, name);
      assert.match(
        outcome.thrown.message,
        new RegExp(`${name} more than once`),
      );
      assert.equal(issuer.lastTokenRequest, undefined, `${name}: no exchange`);
    }
    const twice = await attempt(oidcOptions(issuer), (url) => {
      url.searchParams.delete("code");
      url.searchParams.append("error", "access_denied");
      url.searchParams.append("error", "access_denied");
    });
    assert.ok(twice.thrown instanceof OAuthError);
    assert.match(twice.thrown.message, /error more than once/);
    // The same sign-in, once each: accepted.
    assert.equal((await attempt(oidcOptions(issuer))).status, 204);
  }));

Deno.test("oauth: providerTimeout must be seconds above 0", async () => {
  const { createOAuthClient } = await import("@fetchkit/toolkit/oauth");
  for (const providerTimeout of [0, -1, Number.NaN, Infinity]) {
    assert.throws(
      () =>
        createOAuthClient({
          issuer: "https://a.example",
          clientId: "c",
          redirectUri: "https://app.example/callback",
          session: Symbol("session"),
          providerTimeout,
        }),
      /providerTimeout must be seconds \(> 0\)/,
      String(providerTimeout),
    );
  }
});
