// Re-authentication through a provider: authorize({ maxAge }) sends
// max_age and callback() checks the ID token's auth_time (missing, stale,
// in the future), against the small issuer of our own, which can send an
// ID token a certified provider would not (one without auth_time, or an
// old one: a provider that ignored max_age). checkAuthTime() on its own.
// Portable: runs on Deno, Node and Bun.
import assert from "node:assert/strict";
import { checkAuthTime, OAuthError } from "@fetchkit/toolkit/oauth";
import { APP_ORIGIN, issuerApp, oauthApp } from "./_test_app.ts";
import { Agent } from "./_test_agent.ts";
import { withIssuer } from "./_test_issuer.ts";

type App = ReturnType<typeof oauthApp>["app"];

/** /login?<query>, the issuer's redirect back, the callback's answer. */
async function signIn(
  app: App,
  query: string,
): Promise<{ status: number; body: string; authorizeUrl: URL }> {
  const agent = new Agent().route(
    APP_ORIGIN,
    async (request) => await app.fetch(request),
  );
  const start = await agent.request(`${APP_ORIGIN}/login?${query}`);
  assert.equal(start.status, 302, await start.clone().text());
  const authorizeUrl = new URL(start.headers.get("Location")!);
  const { url } = await agent.follow(authorizeUrl, APP_ORIGIN);
  const response = await agent.request(url);
  return { status: response.status, body: await response.text(), authorizeUrl };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

Deno.test("oauth auth_time: maxAge is sent as max_age, and a fresh auth_time is accepted", () =>
  withIssuer(async (issuer) => {
    issuer.user = { ...issuer.user, auth_time: nowSeconds() - 2 };
    const { status, body, authorizeUrl } = await signIn(
      issuerApp(issuer),
      "maxAge=0&prompt=login",
    );
    assert.equal(authorizeUrl.searchParams.get("max_age"), "0");
    assert.equal(authorizeUrl.searchParams.get("prompt"), "login");
    assert.equal(status, 200, body);
    const result = JSON.parse(body);
    assert.equal(result.maxAge, 0);
    assert.equal(result.claims.sub, "user-1");
  }));

Deno.test("oauth auth_time: a sign-in without maxAge sends no max_age and does not check auth_time", () =>
  withIssuer(async (issuer) => {
    // No auth_time at all, as a provider sends when not asked for one.
    const { status, body, authorizeUrl } = await signIn(issuerApp(issuer), "");
    assert.equal(authorizeUrl.searchParams.has("max_age"), false);
    assert.equal(status, 200, body);
    assert.equal(JSON.parse(body).maxAge, undefined);
  }));

Deno.test("oauth auth_time: an ID token without auth_time is refused when maxAge was asked", () =>
  withIssuer(async (issuer) => {
    const { status, body } = await signIn(issuerApp(issuer), "maxAge=0");
    assert.equal(status, 400, body);
    assert.match(body, /no auth_time/);
  }));

Deno.test("oauth auth_time: a stale auth_time (a provider that ignored max_age) is refused", () =>
  withIssuer(async (issuer) => {
    // Signed in at the provider 10 minutes ago; max_age=0 asked for now.
    issuer.user = { ...issuer.user, auth_time: nowSeconds() - 600 };
    const { status, body } = await signIn(issuerApp(issuer), "maxAge=0");
    assert.equal(status, 400, body);
    assert.match(body, /last asked you to sign in 60\d s ago; at most 0 s/);
  }));

Deno.test("oauth auth_time: maxAuthAge widens the window; the clock tolerance is added", () =>
  withIssuer(async (issuer) => {
    const app = issuerApp(issuer);
    // 4 minutes old, within 5 minutes: accepted.
    issuer.user = { ...issuer.user, auth_time: nowSeconds() - 240 };
    assert.equal((await signIn(app, "maxAge=0&maxAuthAge=300")).status, 200);
    // 5 minutes and 20 s: within the 30 s of tolerance.
    issuer.user = { ...issuer.user, auth_time: nowSeconds() - 320 };
    assert.equal((await signIn(app, "maxAge=0&maxAuthAge=300")).status, 200);
    // 6 minutes: refused.
    issuer.user = { ...issuer.user, auth_time: nowSeconds() - 360 };
    const stale = await signIn(app, "maxAge=0&maxAuthAge=300");
    assert.equal(stale.status, 400);
    assert.match(stale.body, /at most 300 s/);
    // No tolerance: 5 minutes and 20 s is refused.
    issuer.user = { ...issuer.user, auth_time: nowSeconds() - 320 };
    const strict = await signIn(
      issuerApp(issuer, { clockTolerance: 0 }),
      "maxAge=0&maxAuthAge=300",
    );
    assert.equal(strict.status, 400);
  }));

Deno.test("oauth auth_time: an auth_time in the future is refused", () =>
  withIssuer(async (issuer) => {
    issuer.user = { ...issuer.user, auth_time: nowSeconds() + 3600 };
    const { status, body } = await signIn(issuerApp(issuer), "maxAge=0");
    assert.equal(status, 400);
    assert.match(body, /in the future/);
  }));

Deno.test("oauth auth_time: authorize() checks maxAge and needs the openid scope", () =>
  withIssuer(async (issuer) => {
    const { client } = oauthApp({
      issuer: issuer.issuer,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    });
    const context = {
      get: () => ({ get() {}, set() {}, unset() {} }),
      request: new Request(APP_ORIGIN),
    } as unknown as Parameters<typeof client.authorize>[0];
    await assert.rejects(
      client.authorize(context, { maxAge: -1 }),
      /authorize\(\): maxAge must be seconds \(a finite number >= 0\), got -1/,
    );
    await assert.rejects(
      client.authorize(context, { maxAge: 1.5 }),
      /maxAge must be whole seconds/,
    );
    await assert.rejects(
      client.authorize(context, { maxAuthAge: 60 }),
      /maxAge must be seconds/,
    );
    const plain = oauthApp({
      authorizationEndpoint: `${issuer.issuer}/authorize`,
      tokenEndpoint: `${issuer.issuer}/token`,
      userinfoEndpoint: `${issuer.issuer}/userinfo`,
      scopes: ["user"],
      clientId: issuer.clientId,
    }).client;
    await assert.rejects(
      plain.authorize(context, { maxAge: 0 }),
      /maxAge needs the openid scope/,
    );
  }));

Deno.test("checkAuthTime: missing, stale, future and fresh auth_time", () => {
  const now = 1_800_000_000_000;
  const at = now / 1000;
  const reasonOf = (claims: Record<string, unknown>, maxAge: number) => {
    try {
      checkAuthTime(claims, { maxAge, now });
      return "accepted";
    } catch (error) {
      assert.ok(error instanceof OAuthError);
      assert.equal(error.status, 400);
      return error.reason;
    }
  };
  assert.equal(reasonOf({ sub: "a" }, 0), "auth_time");
  assert.equal(reasonOf({ sub: "a", auth_time: "1800000000" }, 0), "auth_time");
  assert.equal(reasonOf({ sub: "a", auth_time: at - 30 }, 0), "accepted");
  assert.equal(reasonOf({ sub: "a", auth_time: at - 31 }, 0), "auth_time");
  assert.equal(reasonOf({ sub: "a", auth_time: at - 330 }, 300), "accepted");
  assert.equal(reasonOf({ sub: "a", auth_time: at + 30 }, 0), "accepted");
  assert.equal(reasonOf({ sub: "a", auth_time: at + 31 }, 0), "auth_time");
  assert.throws(
    () => checkAuthTime({ auth_time: at }, { maxAge: Number.NaN }),
    RangeError,
  );
  assert.throws(
    () => checkAuthTime({ auth_time: at }, { maxAge: 0, clockTolerance: -1 }),
    /clockTolerance must be seconds/,
  );
});
