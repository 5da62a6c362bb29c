// The whole authorization-code + PKCE flow against panva's oidc-provider
// (a certified OpenID Provider) on 127.0.0.1, driven by fetch with a
// cookie jar through the provider's own login and consent pages, and the
// refusals the real provider can produce. Deno-only: the provider runs in
// a subprocess.
import assert from "node:assert/strict";
import { HttpError } from "@fetchkit/toolkit/http-error";
import { createOAuthClient } from "@fetchkit/toolkit/oauth";
import { APP_ORIGIN, oauthApp, REDIRECT_URI, Sessions } from "./_test_app.ts";
import { abortAtProvider, Agent, signInAtProvider } from "./_test_agent.ts";
import {
  CONFIDENTIAL_CLIENT,
  PUBLIC_CLIENT,
  startOidcProvider,
} from "./_test_oidc_provider.ts";

const provider = await startOidcProvider([REDIRECT_URI]);
const { issuer } = provider;

/** An agent that reaches `app` in process. */
function agentFor(
  app: { fetch(request: Request): Response | Promise<Response> },
): Agent {
  return new Agent().route(
    APP_ORIGIN,
    async (request) => await app.fetch(request),
  );
}

/** Starts a sign-in in the app: the provider URL it redirects to. */
async function start(agent: Agent, returnTo?: string): Promise<string> {
  const query = returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : "";
  const response = await agent.request(`${APP_ORIGIN}/login${query}`);
  assert.equal(response.status, 302);
  return response.headers.get("Location")!;
}

async function errorOf(response: Response): Promise<[number, string]> {
  return [response.status, await response.text()];
}

Deno.test("oidc-provider: a confidential client signs in (code + PKCE, ID token, userinfo)", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  const authorizeUrl = new URL(await start(agent, "/dashboard?tab=1"));
  assert.equal(authorizeUrl.origin, issuer);
  const params = authorizeUrl.searchParams;
  assert.equal(params.get("code_challenge_method"), "S256");
  assert.match(params.get("code_challenge")!, /^[\w-]{43}$/);
  assert.match(params.get("state")!, /^[\w-]{43}$/);
  assert.match(params.get("nonce")!, /^[\w-]{43}$/);
  assert.equal(params.get("scope"), "openid email profile");

  const callback = await signInAtProvider(
    agent,
    authorizeUrl.href,
    APP_ORIGIN,
    "alice",
  );
  assert.equal(callback.searchParams.get("iss"), issuer);
  const response = await agent.request(callback);
  assert.equal(response.status, 200);
  const result = await response.json();
  assert.equal(result.claims.sub, "alice");
  assert.equal(result.claims.iss, issuer);
  assert.equal(result.claims.aud, CONFIDENTIAL_CLIENT.clientId);
  // The ID token of this provider carries sub only; email and name came
  // from userinfo.
  assert.equal(result.claims.email, "alice@example.com");
  assert.equal(result.claims.email_verified, true);
  assert.equal(result.claims.name, "Alice Provider");
  assert.equal(typeof result.tokens.accessToken, "string");
  assert.equal(typeof result.tokens.idToken, "string");
  assert.equal(result.returnTo, "/dashboard?tab=1");

  // The same callback again: its state was used.
  const again = await agent.request(callback);
  const [status, text] = await errorOf(again);
  assert.equal(status, 400);
  assert.match(text, /state does not match a sign-in started in this session/);
});

Deno.test("oidc-provider: a public client signs in with PKCE alone", async () => {
  const { app } = oauthApp({ issuer, ...PUBLIC_CLIENT });
  const agent = agentFor(app);
  const callback = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "bob",
  );
  const response = await agent.request(callback);
  assert.equal(response.status, 200);
  const result = await response.json();
  assert.equal(result.claims.sub, "bob");
  assert.equal(result.claims.email, "bob@example.com");
  assert.equal(result.returnTo, undefined);
});

Deno.test("oidc-provider: a wrong state is refused", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  const callback = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "alice",
  );
  const forged = new URL(callback);
  forged.searchParams.set("state", "A".repeat(43));
  const [status, text] = await errorOf(await agent.request(forged));
  assert.equal(status, 400);
  assert.match(text, /state does not match/);
  // Another browser (no session) with the real callback URL: refused too.
  const stranger = agentFor(app);
  const [status2, text2] = await errorOf(await stranger.request(callback));
  assert.equal(status2, 400);
  assert.match(text2, /state does not match/);
});

Deno.test("oidc-provider: a code exchanged with another sign-in's verifier is refused (invalid_grant)", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  const first = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "alice",
  );
  // A second sign-in in the same session: its state, the first one's code.
  const second = new URL(await start(agent));
  const mixed = new URL(first);
  mixed.searchParams.set("state", second.searchParams.get("state")!);
  const [status, text] = await errorOf(await agent.request(mixed));
  assert.equal(status, 400);
  assert.match(text, /The provider refused the code: invalid_grant/);
});

Deno.test("oidc-provider: a replayed code is refused by the provider", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  const first = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "alice",
  );
  assert.equal((await agent.request(first)).status, 200);
  // An attacker who saw the code replays it under a fresh state of theirs.
  const attacker = agentFor(app);
  const fresh = new URL(await start(attacker));
  const replay = new URL(first);
  replay.searchParams.set("state", fresh.searchParams.get("state")!);
  const [status, text] = await errorOf(await attacker.request(replay));
  assert.equal(status, 400);
  assert.match(text, /The provider refused the code: invalid_grant/);
});

Deno.test("oidc-provider: an iss that is not the provider's is refused (RFC 9207)", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  const callback = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "alice",
  );
  const mixUp = new URL(callback);
  mixUp.searchParams.set("iss", "https://attacker.example");
  const [status, text] = await errorOf(await agent.request(mixUp));
  assert.equal(status, 400);
  assert.match(
    text,
    /iss "https:\/\/attacker.example" is not the provider's issuer/,
  );

  // Without iss, though the provider says it always sends it: refused.
  const callback2 = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "alice",
  );
  callback2.searchParams.delete("iss");
  const [status2, text2] = await errorOf(await agent.request(callback2));
  assert.equal(status2, 400);
  assert.match(text2, /lacks iss/);
});

Deno.test("oidc-provider: the user cancelling is access_denied, a 400 naming it", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  const callback = await abortAtProvider(agent, await start(agent), APP_ORIGIN);
  assert.equal(callback.searchParams.get("error"), "access_denied");
  const [status, text] = await errorOf(await agent.request(callback));
  assert.equal(status, 400);
  assert.match(text, /The provider refused the sign-in: access_denied/);
});

Deno.test("oidc-provider: a wrong client secret is the provider's invalid_client", async () => {
  const { app } = oauthApp({
    issuer,
    clientId: CONFIDENTIAL_CLIENT.clientId,
    clientSecret: "not-the-secret",
  });
  const agent = agentFor(app);
  const callback = await signInAtProvider(
    agent,
    await start(agent),
    APP_ORIGIN,
    "alice",
  );
  const [status, text] = await errorOf(await agent.request(callback));
  assert.equal(status, 400);
  assert.match(text, /invalid_client/);
});

Deno.test("oidc-provider: discovery checks the issuer the document names", async () => {
  const client = createOAuthClient({
    issuer: issuer + "/", // not the issuer the provider names
    ...CONFIDENTIAL_CLIENT,
    redirectUri: REDIRECT_URI,
    session: Sessions,
  });
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  await start(agent); // a session exists
  const error = await client.authorize(
    { get: () => ({ get() {}, set() {}, unset() {} }) } as never,
  ).catch((e) => e);
  assert.ok(error instanceof HttpError);
  assert.equal(error.status, 502);
  assert.match(
    error.message,
    /names issuer "http:\/\/127.0.0.1:\d+", not the configured/,
  );
});

globalThis.addEventListener("unload", () => {
  provider.stop();
});

Deno.test("oidc-provider: maxAge=0 with prompt=login asks for the login again, and the ID token's auth_time is checked", async () => {
  const { app } = oauthApp({ issuer, ...CONFIDENTIAL_CLIENT });
  const agent = agentFor(app);
  // A first sign-in: the provider now has a session for alice.
  const first = await agent.request(
    await signInAtProvider(agent, await start(agent), APP_ORIGIN, "alice"),
  );
  assert.equal(first.status, 200);
  await first.body?.cancel();

  // Without max_age the provider answers from its session: no login page.
  const silent = await agent.follow(await start(agent), APP_ORIGIN);
  assert.equal(silent.url.origin, APP_ORIGIN);

  // With max_age=0 and prompt=login it shows its login page again.
  const reauth = await agent.request(
    `${APP_ORIGIN}/login?maxAge=0&prompt=login`,
  );
  const authorizeUrl = new URL(reauth.headers.get("Location")!);
  assert.equal(authorizeUrl.searchParams.get("max_age"), "0");
  assert.equal(authorizeUrl.searchParams.get("prompt"), "login");
  const page = await agent.follow(authorizeUrl, APP_ORIGIN);
  assert.notEqual(page.url.origin, APP_ORIGIN);
  assert.match(await page.response.text(), /name="login"/);
  const callback = await signInAtProvider(
    agent,
    authorizeUrl.href,
    APP_ORIGIN,
    "alice",
  );
  const response = await agent.request(callback);
  assert.equal(response.status, 200);
  const result = await response.json();
  assert.equal(result.maxAge, 0);
  assert.equal(typeof result.claims.auth_time, "number");
  assert.ok(Date.now() / 1000 - result.claims.auth_time < 30);
});
