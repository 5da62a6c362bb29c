// createOAuthClient() against a small issuer of our own on serve(): the
// ID token faults (another key, expired, foreign issuer or audience,
// wrong nonce), GitHub's plain OAuth 2 path, returnTo, the session's
// pending sign-ins and the option checks. Portable: runs on Deno, Node
// and Bun.
import assert from "node:assert/strict";
import {
  createOAuthClient,
  github,
  google,
  microsoft,
  OAuthError,
  oidc,
} from "@fetchkit/toolkit/oauth";
import {
  APP_ORIGIN,
  issuerApp,
  oauthApp,
  REDIRECT_URI,
  Sessions,
} from "./_test_app.ts";
import { Agent } from "./_test_agent.ts";
import { withIssuer } from "./_test_issuer.ts";
import { tokensEqual } from "./_transactions.ts";

type App = ReturnType<typeof oauthApp>["app"];

function agentFor(app: App): Agent {
  return new Agent().route(
    APP_ORIGIN,
    async (request) => await app.fetch(request),
  );
}

/** /login in the app, the issuer's instant redirect back: the callback URL. */
async function roundTrip(agent: Agent, query = ""): Promise<URL> {
  const start = await agent.request(`${APP_ORIGIN}/login${query}`);
  assert.equal(start.status, 302);
  const { url } = await agent.follow(
    start.headers.get("Location")!,
    APP_ORIGIN,
  );
  return url;
}

async function signIn(
  app: App,
  query = "",
): Promise<{ status: number; body: string }> {
  const agent = agentFor(app);
  const response = await agent.request(await roundTrip(agent, query));
  return { status: response.status, body: await response.text() };
}

Deno.test("oauth: a good ID token signs in; the secret goes as client_secret_basic", () =>
  withIssuer(async (issuer) => {
    const { status, body } = await signIn(issuerApp(issuer), "?returnTo=/here");
    assert.equal(status, 200, body);
    const result = JSON.parse(body);
    assert.equal(result.claims.sub, "user-1");
    assert.equal(result.claims.email, "mini@example.com");
    assert.equal(result.returnTo, "/here");
    assert.match(issuer.lastTokenAuthorization!, /^Basic /);
    assert.equal(issuer.lastTokenRequest!.get("client_secret"), null);
    assert.match(issuer.lastTokenRequest!.get("code_verifier")!, /^[\w-]{43}$/);
  }));

const FAULTS: [string, Record<string, unknown>, RegExp][] = [
  ["signed by another key", { otherKey: true }, /signature does not verify/],
  [
    "signed under a kid the JWKS lacks",
    { unknownKid: true },
    /signature does not verify/,
  ],
  ["expired", { expiresIn: -120 }, /ID token refused: it has expired/],
  [
    "from another issuer",
    { iss: "https://other.example" },
    /claim "iss"|issued by "https:\/\/other.example"/,
  ],
  ["for another client", { aud: "someone-else" }, /claim "aud"/],
  [
    "for several audiences without azp",
    { aud: ["mini-client", "x"] },
    /several audiences/,
  ],
  [
    "with a nonce not this sign-in's",
    { nonce: "not-the-nonce" },
    /nonce is not the one this sign-in sent/,
  ],
  ["missing", { noIdToken: true }, /sent no ID token/],
];

for (const [what, fault, message] of FAULTS) {
  Deno.test(`oauth: an ID token ${what} is refused with 400`, () =>
    withIssuer(async (issuer) => {
      issuer.fault = fault;
      const { status, body } = await signIn(issuerApp(issuer));
      assert.equal(status, 400, body);
      assert.match(body, message);
    }));
}

Deno.test("oauth: an ID token expired less than the clock tolerance ago is accepted", () =>
  withIssuer(async (issuer) => {
    issuer.fault = { expiresIn: -10 };
    assert.equal((await signIn(issuerApp(issuer))).status, 200);
    issuer.fault = { expiresIn: -10 };
    const strict = await signIn(issuerApp(issuer, { clockTolerance: 0 }));
    assert.equal(strict.status, 400);
  }));

Deno.test("oauth: OAuthError carries the reason; the token endpoint's error is named", () =>
  withIssuer(async (issuer) => {
    const { client } = oauthApp({
      issuer: issuer.issuer,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    });
    issuer.fault = { tokenError: "invalid_grant" };
    const { app } = oauthApp({
      issuer: issuer.issuer,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    });
    const { status, body } = await signIn(app);
    assert.equal(status, 400);
    assert.equal(body, "The provider refused the code: invalid_grant");
    const error = new OAuthError("code", "x", {
      providerError: "invalid_grant",
    });
    assert.equal(error.status, 400);
    assert.equal(error.reason, "code");
    assert.equal(typeof client.callback, "function");
  }));

Deno.test("oauth: a sign-in that outlived ttl is refused as expired, once", () =>
  withIssuer(async (issuer) => {
    const app = issuerApp(issuer, { ttl: 0 });
    const agent = agentFor(app);
    const callback = await roundTrip(agent);
    const response = await agent.request(callback);
    assert.equal(response.status, 400);
    assert.match(await response.text(), /The sign-in expired/);
    const again = await agent.request(callback);
    assert.match(await again.text(), /state does not match/);
  }));

Deno.test("oauth: returnTo that could leave the origin is dropped", () =>
  withIssuer(async (issuer) => {
    const app = issuerApp(issuer);
    for (
      const bad of [
        "//evil.example/x",
        "https://evil.example/",
        "/\\evil.example",
        "/\r\nSet-Cookie:x=1",
        "javascript:alert(1)",
        "dashboard",
        "/" + "a".repeat(2048),
      ]
    ) {
      const { status, body } = await signIn(
        app,
        `?returnTo=${encodeURIComponent(bad)}`,
      );
      assert.equal(status, 200, body);
      assert.equal(JSON.parse(body).returnTo, undefined, bad);
    }
    const ok = await signIn(
      app,
      `?returnTo=${encodeURIComponent("/a/b?c=%2F&d")}`,
    );
    assert.equal(JSON.parse(ok.body).returnTo, "/a/b?c=%2F&d");
  }));

Deno.test("oauth: five sign-ins may be pending per session; the oldest goes first", () =>
  withIssuer(async (issuer) => {
    const app = issuerApp(issuer);
    const agent = agentFor(app);
    const callbacks: URL[] = [];
    for (let i = 0; i < 6; i++) callbacks.push(await roundTrip(agent));
    // The first was dropped when the sixth started; the others still work.
    assert.equal((await agent.request(callbacks[0])).status, 400);
    for (const callback of callbacks.slice(1)) {
      const response = await agent.request(callback);
      assert.equal(response.status, 200, await response.text());
    }
  }));

Deno.test("oauth: a sign-in started by one client is not finished by another", () =>
  withIssuer(async (issuer) => {
    const first = oauthApp({
      issuer: issuer.issuer,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    });
    const other = createOAuthClient({
      issuer: issuer.issuer,
      clientId: "another-client",
      redirectUri: REDIRECT_URI,
      session: Sessions,
    });
    first.app.get("/other-callback", async (context) => {
      await other.callback(context);
      return new Response("signed in");
    });
    const agent = agentFor(first.app);
    const callback = await roundTrip(agent);
    const response = await agent.request(
      `${APP_ORIGIN}/other-callback${callback.search}`,
    );
    assert.equal(response.status, 400);
    assert.match(await response.text(), /state does not match/);
  }));

Deno.test("oauth: the GitHub preset reads the user and its primary verified email", () =>
  withIssuer(async (issuer) => {
    const preset = github({ baseUrl: issuer.issuer, apiUrl: issuer.issuer });
    const app = oauthApp({
      ...preset,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    }).app;
    issuer.emails = [
      { email: "old@example.com", primary: false, verified: true },
      { email: "octo@example.com", primary: true, verified: true },
    ];
    const { status, body } = await signIn(app);
    assert.equal(status, 200, body);
    const { claims, tokens } = JSON.parse(body);
    assert.deepEqual(
      { ...claims },
      {
        sub: "4242",
        name: "octo",
        preferred_username: "octo",
        picture: "https://avatars.example/4242",
        email: "octo@example.com",
        email_verified: true,
      },
    );
    assert.equal(tokens.idToken, undefined);
    // client_secret_post, and no nonce or ID token for plain OAuth 2.
    assert.equal(
      issuer.lastTokenRequest!.get("client_secret"),
      issuer.clientSecret,
    );
    assert.equal(issuer.lastTokenAuthorization, null);

    issuer.emails = [{
      email: "octo@example.com",
      primary: true,
      verified: false,
    }];
    const unverified = JSON.parse((await signIn(app)).body).claims;
    assert.equal(unverified.email_verified, false);
  }));

Deno.test("oauth: plain http issuers and endpoints are refused off loopback", () => {
  const base = { clientId: "c", redirectUri: REDIRECT_URI, session: Sessions };
  assert.throws(
    () => createOAuthClient({ ...base, issuer: "http://sso.example.com" }),
    /issuer must be https \(plain http only on loopback\)/,
  );
  assert.throws(
    () =>
      createOAuthClient({
        ...base,
        ...github({ baseUrl: "http://ghe.example.com" }),
      }),
    /authorization_endpoint in the options must be https/,
  );
  for (
    const issuer of [
      "http://127.0.0.1:9",
      "http://localhost:9",
      "http://[::1]:9",
      "https://sso.example.com",
    ]
  ) {
    createOAuthClient({ ...base, issuer });
  }
});

Deno.test("oauth: options are checked when the client is made", () => {
  const base = { redirectUri: REDIRECT_URI, session: Sessions };
  assert.throws(
    () =>
      createOAuthClient({ ...base, clientId: "", issuer: "https://a.example" }),
    /clientId is required/,
  );
  assert.throws(
    () => createOAuthClient({ ...base, clientId: "c" }),
    /give issuer/,
  );
  assert.throws(
    () =>
      createOAuthClient({
        ...base,
        clientId: "c",
        issuer: "https://a.example",
        redirectUri: "/cb",
      }),
    /redirectUri must be an absolute URL/,
  );
  assert.throws(
    () =>
      createOAuthClient({
        ...base,
        clientId: "c",
        authorizationEndpoint: "https://a.example/auth",
        tokenEndpoint: "https://a.example/token",
        scopes: ["read"],
      }),
    /give userinfoEndpoint or fetchUser/,
  );
  assert.throws(
    () =>
      createOAuthClient({
        ...base,
        clientId: "c",
        issuer: "https://a.example",
        ttl: -1,
      }),
    /ttl must be seconds/,
  );
});

Deno.test("oauth: presets", () => {
  assert.equal(google().issuer, "https://accounts.google.com");
  assert.equal(
    microsoft().issuer,
    "https://login.microsoftonline.com/common/v2.0",
  );
  assert.equal(microsoft().multiTenant, true);
  assert.equal(microsoft({ tenant: "contoso.example" }).multiTenant, false);
  const entra = microsoft().mapClaims!;
  assert.equal(entra({ sub: "s", email: "a@b.example" }).email_verified, false);
  assert.equal(
    entra({ sub: "s", email: "a@b.example", email_verified: true })
      .email_verified,
    false, // Entra's own word is xms_edov
  );
  assert.equal(entra({ sub: "s", xms_edov: true }).email_verified, true);
  assert.equal(
    github().tokenEndpoint,
    "https://github.com/login/oauth/access_token",
  );
  assert.deepEqual(oidc("https://sso.example").scopes, [
    "openid",
    "email",
    "profile",
  ]);
});

Deno.test("oauth: mapClaims adjusts what callback() returns", () =>
  withIssuer(async (issuer) => {
    const app = issuerApp(issuer, {
      mapClaims: (claims: Record<string, unknown>) => ({
        ...claims,
        email_verified: false,
        mapped: true,
      }),
    });
    const { claims } = JSON.parse((await signIn(app)).body);
    assert.equal(claims.email_verified, false);
    assert.equal(claims.mapped, true);
  }));

Deno.test("oauth: an ID token whose sub is not a string is refused", () =>
  withIssuer(async (issuer) => {
    issuer.user = { ...issuer.user, sub: 42 };
    const { status, body } = await signIn(issuerApp(issuer));
    assert.equal(status, 400);
    assert.match(body, /its sub is not a string/);
  }));

Deno.test("oauth: tokensEqual compares whole tokens", () => {
  const token = "A".repeat(43);
  assert.equal(tokensEqual(token, token), true);
  assert.equal(tokensEqual("A".repeat(42) + "B", token), false);
  assert.equal(tokensEqual("B" + "A".repeat(42), token), false);
  assert.equal(tokensEqual("A".repeat(42), token), false);
  assert.equal(tokensEqual("", token), false);
});

Deno.test("oauth: a multi-tenant issuer (Microsoft's common) checks the ID token's iss against its own tid", () =>
  withIssuer(async (issuer) => {
    const app = oauthApp({
      ...microsoft(),
      issuer: `${issuer.issuer}/common/v2.0`,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    }).app;
    issuer.user = { ...issuer.user, tid: "tenant-1", xms_edov: true };
    issuer.fault = { iss: `${issuer.issuer}/tenant-1/v2.0` };
    const good = await signIn(app);
    assert.equal(good.status, 200, good.body);
    assert.equal(JSON.parse(good.body).claims.email_verified, true);

    // Another tenant's issuer than the token's own tid: refused.
    issuer.fault = { iss: `${issuer.issuer}/tenant-2/v2.0` };
    const bad = await signIn(app);
    assert.equal(bad.status, 400);
    assert.match(
      bad.body,
      /issued by ".*\/tenant-2\/v2.0", not ".*\/tenant-1\/v2.0"/,
    );

    // The discovery document must name the pattern only for multiTenant.
    const strict = oauthApp({
      issuer: `${issuer.issuer}/common/v2.0`,
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    }).app;
    const start = await agentFor(strict).request(`${APP_ORIGIN}/login`);
    assert.equal(start.status, 502);
    await start.body?.cancel();
  }));

Deno.test("oauth: alg confusion: an unsigned (none) ID token and an HS256 one keyed with the public key are refused, even when discovery lists those algs", () =>
  withIssuer(async (issuer) => {
    issuer.algs = ["ES256", "HS256", "none"];
    for (const forgedAlg of ["none", "HS256"] as const) {
      issuer.fault = { forgedAlg };
      const { status, body } = await signIn(issuerApp(issuer));
      assert.equal(status, 400, `${forgedAlg}: ${body}`);
      assert.match(body, /ID token refused/, forgedAlg);
      assert.doesNotMatch(body, /mini@example\.com/, forgedAlg);
    }
    // The real one still goes through.
    assert.equal((await signIn(issuerApp(issuer))).status, 200);
  }));

Deno.test("oauth: an ID token without kid verifies against a one-key JWKS, and is refused against several (OpenID Connect Core 10.1)", () =>
  withIssuer(async (issuer) => {
    issuer.fault = { noKid: true };
    const single = await signIn(issuerApp(issuer));
    assert.equal(single.status, 200, single.body);
    issuer.twoKeys = true;
    issuer.fault = { noKid: true };
    const several = await signIn(issuerApp(issuer));
    assert.equal(several.status, 400, several.body);
    assert.match(several.body, /signature does not verify/);
    // With its kid, the right key of the two is used.
    assert.equal((await signIn(issuerApp(issuer))).status, 200);
  }));

Deno.test("oauth: a provider whose keys (jwks_uri) are down is a 502 naming them, not a 400 about the token", () =>
  withIssuer(async (issuer) => {
    for (const status of [503, 500, 404]) {
      issuer.jwksStatus = status;
      const { app, client } = oauthApp({
        issuer: issuer.issuer,
        clientId: issuer.clientId,
        clientSecret: issuer.clientSecret,
      });
      let thrown: unknown;
      app.get("/callback-caught", async (context) => {
        try {
          return Response.json(await client.callback(context));
        } catch (error) {
          thrown = error;
          return new Response(null, { status: 599 });
        }
      });
      const agent = agentFor(app);
      const back = await roundTrip(agent);
      back.pathname = "/callback-caught";
      await (await agent.request(back)).body?.cancel();
      assert.ok(!(thrown instanceof OAuthError), `${status}: ${thrown}`);
      assert.equal((thrown as { status?: number }).status, 502, String(thrown));
      assert.match(String(thrown), /jwks_uri/);
      assert.match(String(thrown), /not be read/);
    }
    issuer.jwksStatus = undefined;
    assert.equal((await signIn(issuerApp(issuer))).status, 200);
  }));

Deno.test("oauth: a provider whose user API is down (5xx, unreachable) is a 502, not a 400 about the sign-in", () =>
  withIssuer(async (issuer) => {
    const { app, client } = oauthApp({
      ...github({ baseUrl: issuer.issuer, apiUrl: issuer.issuer }),
      clientId: issuer.clientId,
      clientSecret: issuer.clientSecret,
    });
    let thrown: unknown;
    app.get("/callback-caught", async (context) => {
      try {
        return Response.json(await client.callback(context));
      } catch (error) {
        thrown = error;
        return new Response(null, { status: 599 });
      }
    });
    issuer.userStatus = 503;
    const agent = agentFor(app);
    const back = await roundTrip(agent);
    back.pathname = "/callback-caught";
    await (await agent.request(back)).body?.cancel();
    assert.ok(!(thrown instanceof OAuthError), String(thrown));
    assert.equal((thrown as { status?: number }).status, 502, String(thrown));
    assert.match(String(thrown), /\/user answered 503/);
    // A 401 (the token refused) is still the sign-in's 400.
    issuer.userStatus = 401;
    const { status } = await signIn(app);
    assert.equal(status, 400);
  }));
