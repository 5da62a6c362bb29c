// "Sign in with <provider>" in the example app against panva's
// oidc-provider on 127.0.0.1 (a subprocess), by fetch with a cookie jar
// through the provider's own login and consent pages: new users from the
// claims, linking by verified email only, refusals as pages, the rate
// limit, and no buttons when nothing is configured.
import assert from "node:assert/strict";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { createApp } from "./app.ts";
import { createMailbox } from "./_test_mailbox.ts";
import type { Mailer } from "./mailer.ts";
import { createSessionStorage } from "./sessions.ts";
import { ORIGIN, SECRET } from "./_test_app.ts";
import { browser } from "./_test_provider_agent.ts";
import { runMain, startMain } from "./_test_server.ts";
import {
  checkNetAccess,
  loadOAuthProviders,
  type OAuthProvider,
  publicUrlOf,
} from "./oauth.ts";
import { OAUTH_ADDRESS_LIMIT } from "./controllers/oauth.ts";
import { ConfigError } from "./config.ts";
import { createUserStore, type UserStore } from "./users.ts";
import { createIdentityStore } from "./oauth.ts";
import { oauthController } from "./controllers/oauth.ts";
import { createPasswords } from "./passwords.ts";
import { Session } from "./context.ts";
import { routes } from "./routes.ts";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { session } from "@fetchkit/toolkit/session-middleware";
import { createMemoryRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import {
  abortAtProvider,
  type Agent,
  signInAtProvider,
} from "../../oauth/_test_agent.ts";
import {
  CONFIDENTIAL_CLIENT,
  startOidcProvider,
} from "../../oauth/_test_oidc_provider.ts";

const CALLBACK = `${ORIGIN}/auth/oauth/oidc/callback`;
const provider = await startOidcProvider([CALLBACK]);

function providers(): OAuthProvider[] {
  return loadOAuthProviders((name) =>
    ({
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CONFIDENTIAL_CLIENT.clientId,
      OIDC_CLIENT_SECRET: CONFIDENTIAL_CLIENT.clientSecret,
      OIDC_NAME: "Test SSO",
    } as Record<string, string>)[name]
  );
}

async function app(
  oauthProviders: OAuthProvider[] = providers(),
  mailer: Mailer = createMailbox().mailer,
): Promise<{ app: Router; kv: Deno.Kv }> {
  const kv = await Deno.openKv(":memory:");
  const router = await createApp({
    kv,
    sessions: createSessionStorage({
      kind: "kv",
      kv,
      secrets: [SECRET],
      secure: false,
    }),
    bcryptCost: 4,
    log: null,
    admin: { email: "admin@example.com", password: "admin-password" },
    oauthProviders,
    publicUrl: ORIGIN,
    mailer,
  });
  return { app: router, kv };
}

/** Clicks "Sign in with Test SSO": the provider URL. */
async function start(agent: Agent, returnTo?: string): Promise<string> {
  const query = returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : "";
  const response = await agent.request(`${ORIGIN}/auth/oauth/oidc${query}`);
  assert.equal(response.status, 302, await response.clone().text());
  return response.headers.get("Location")!;
}

async function signIn(
  agent: Agent,
  login: string,
  returnTo?: string,
): Promise<Response> {
  const callback = await signInAtProvider(
    agent,
    await start(agent, returnTo),
    ORIGIN,
    login,
  );
  return await agent.request(callback);
}

async function page(agent: Agent, path: string): Promise<[number, string]> {
  const response = await agent.request(ORIGIN + path, {
    headers: { Accept: "text/html" },
  });
  return [response.status, await response.text()];
}

Deno.test("oauth example: the login page has the provider's button and the linking rule", async () => {
  const { app: router, kv } = await app();
  try {
    const [status, body] = await page(
      browser(router),
      "/auth/login?returnTo=/profile",
    );
    assert.equal(status, 200);
    assert.match(
      body,
      /<a class="provider" href="\/auth\/oauth\/oidc\?returnTo=%2Fprofile">Sign in with Test SSO<\/a>/,
    );
    assert.match(body, /<summary>How linking works<\/summary>/);
    assert.match(
      body,
      /only when it has verified\s+that the email address is yours/,
    );
    assert.match(body, /you have verified it here\s+too/);
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: a verified new user is created from the claims, then signs in again as the same user", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    const response = await signIn(agent, "alice", "/profile");
    assert.equal(response.status, 303, await response.clone().text());
    assert.equal(response.headers.get("Location"), "/profile");
    const [, dashboard] = await page(agent, "/dashboard");
    assert.match(dashboard, /Welcome, Alice Provider!/);
    const users = createUserStore(kv);
    const alice = await users.findByEmail("alice@example.com");
    assert.equal(alice?.name, "Alice Provider");

    // Signed in: the buttons send to the dashboard.
    const again = await agent.request(`${ORIGIN}/auth/oauth/oidc`);
    assert.equal(again.headers.get("Location"), "/dashboard");

    // A new browser signs in as the same user (the identity is linked).
    const other = browser(router);
    assert.equal((await signIn(other, "alice")).status, 303);
    const [, page2] = await page(other, "/dashboard");
    assert.match(page2, /Alice Provider/);
    assert.equal((await users.list()).length, 2); // the admin and Alice
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: a verified email joins the existing account with that email", async () => {
  const { app: router, kv } = await app();
  try {
    const users = createUserStore(kv);
    const agent = browser(router);
    const registered = await agent.request(`${ORIGIN}/auth/register`, {
      method: "POST",
      body: new URLSearchParams({
        email: "Bob@Example.com",
        password: "bob-password-1",
        name: "Bob Registered",
      }),
    });
    assert.equal(registered.status, 303);
    const bob = (await users.findByEmail("bob@example.com"))!;
    // Bob opened the link mailed at registration.
    assert.ok(await users.markEmailVerified(bob.id, bob.email));
    const fresh = browser(router);
    assert.equal((await signIn(fresh, "bob")).status, 303);
    const [, dashboard] = await page(fresh, "/dashboard");
    assert.match(
      dashboard,
      /Your Test SSO account is now linked to Bob@Example.com/,
    );
    // The verified owner's account keeps its name and password.
    assert.match(dashboard, /Bob Registered/);
    const login = await browser(router).request(`${ORIGIN}/auth/login`, {
      method: "POST",
      body: new URLSearchParams({
        email: "bob@example.com",
        password: "bob-password-1",
      }),
    });
    assert.equal(login.headers.get("Location"), "/dashboard");
    assert.equal((await users.list()).length, 2);
    assert.equal((await users.findByEmail("bob@example.com"))!.id, bob.id);
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: a verified email does not join an account whose address is not verified here (no pre-takeover); after a reset it does", async () => {
  const box = createMailbox();
  const { app: router, kv } = await app(providers(), box.mailer);
  try {
    const users = createUserStore(kv);
    const identities = createIdentityStore(kv);
    // The attacker registers Bob's email with a password of their own
    // and never opens the verification link (it went to Bob).
    const attacker = browser(router);
    const registered = await attacker.request(`${ORIGIN}/auth/register`, {
      method: "POST",
      body: new URLSearchParams({
        email: "bob@example.com",
        password: "attacker-password-1",
        name: "Not Bob",
      }),
    });
    assert.equal(registered.status, 303);
    const account = (await users.findByEmail("bob@example.com"))!;

    // Bob signs in with his provider, which has verified bob@example.com:
    // refused, told what to do, nothing linked.
    const bob = browser(router);
    const refused = await signIn(bob, "bob");
    assert.equal(refused.status, 403);
    const body = await refused.text();
    assert.match(body, /its address has not been verified yet/);
    assert.match(body, /Forgot password\?/);
    assert.equal((await page(bob, "/dashboard"))[0], 302);
    assert.equal(await identities.find("oidc", "bob"), null);

    // Bob asks for a reset: the link goes to his address; using it
    // verifies the address and ends the attacker's session.
    await bob.request(`${ORIGIN}/password/forgot`, {
      method: "POST",
      body: new URLSearchParams({ email: "bob@example.com" }),
    });
    const reset = box.link(await box.next("bob@example.com", /Reset/));
    const saved = await bob.request(ORIGIN + reset, {
      method: "POST",
      body: new URLSearchParams({ password: "bob-new-password" }),
    });
    assert.equal(saved.status, 303);
    assert.equal((await users.findById(account.id))!.emailVerified, true);
    const after = await attacker.request(`${ORIGIN}/dashboard`);
    assert.equal(after.status, 302, "the attacker's session still works");

    // Now the provider joins the account.
    assert.equal((await signIn(bob, "bob")).status, 303);
    const [status, dashboard] = await page(bob, "/dashboard");
    assert.equal(status, 200);
    assert.match(dashboard, /Your Test SSO account is now linked/);
    assert.equal(await identities.find("oidc", "bob"), account.id);
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: an unverified email never opens an existing account (nor makes one)", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    // mallory's provider account claims admin@example.com, unverified.
    const response = await signIn(agent, "mallory");
    assert.equal(response.status, 403);
    const body = await response.text();
    assert.match(
      body,
      /Test SSO has not verified that admin@example.com is yours/,
    );
    const dashboard = await agent.request(`${ORIGIN}/dashboard`);
    assert.equal(dashboard.status, 302); // still a guest
    assert.equal((await createUserStore(kv).list()).length, 1);
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: refusals are login pages naming what failed", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    const callback = await signInAtProvider(
      agent,
      await start(agent),
      ORIGIN,
      "alice",
    );
    callback.searchParams.set("state", "forged");
    const forged = await agent.request(callback, {
      headers: { Accept: "text/html" },
    });
    assert.equal(forged.status, 400);
    const text = await forged.text();
    assert.match(
      text,
      /Sign-in with Test SSO failed: The state does not match/,
    );
    assert.match(text, /<form method="post" action="\/auth\/login"/);

    // A new browser: the first one's provider session would skip the login page.
    const other = browser(router);
    const cancelled = await other.request(
      await abortAtProvider(other, await start(other), ORIGIN),
    );
    assert.equal(cancelled.status, 400);
    assert.match(await cancelled.text(), /Sign-in with Test SSO was cancelled/);

    const unknown = await agent.request(`${ORIGIN}/auth/oauth/google`);
    assert.equal(unknown.status, 404);
    await unknown.body?.cancel();
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: the sign-in routes are rate limited per client address", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    for (let i = 0; i < OAUTH_ADDRESS_LIMIT; i++) {
      const response = await agent.request(`${ORIGIN}/auth/oauth/oidc`);
      assert.equal(response.status, 302);
    }
    const refused = await agent.request(
      `${ORIGIN}/auth/oauth/oidc/callback?state=x`,
    );
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("Retry-After")) > 0);
    assert.match(await refused.text(), /Too many sign-in attempts/);
    // Another address is not affected.
    assert.equal(
      (await browser(router).request(`${ORIGIN}/auth/oauth/oidc`)).status,
      302,
    );
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: with no provider configured, no buttons and no routes", async () => {
  const { app: router, kv } = await app(loadOAuthProviders(() => undefined));
  try {
    const agent = browser(router);
    const [, body] = await page(agent, "/auth/login");
    // No provider's button ("Sign in with a passkey" is not a provider's).
    assert.doesNotMatch(body, /Sign in with (?!a passkey)/);
    assert.doesNotMatch(body, /providers-title/);
    const response = await agent.request(`${ORIGIN}/auth/oauth/oidc`);
    assert.equal(response.status, 404);
    await response.body?.cancel();
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: provider settings are checked at start", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.deepEqual(loadOAuthProviders(env({})), []);
  assert.throws(
    () => loadOAuthProviders(env({ GOOGLE_CLIENT_ID: "x" })),
    (e) =>
      e instanceof ConfigError &&
      /GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/.test(e.message),
  );
  assert.throws(
    () =>
      loadOAuthProviders(
        env({ OIDC_ISSUER: "http://sso.example.com", OIDC_CLIENT_ID: "x" }),
      ),
    /OIDC_ISSUER must be https/,
  );
  const all = loadOAuthProviders(env({
    GOOGLE_CLIENT_ID: "g",
    GOOGLE_CLIENT_SECRET: "gs",
    MICROSOFT_CLIENT_ID: "m",
    MICROSOFT_CLIENT_SECRET: "ms",
    MICROSOFT_TENANT: "contoso.example",
    GITHUB_CLIENT_ID: "h",
    GITHUB_CLIENT_SECRET: "hs",
    OIDC_ISSUER: "https://sso.example.com",
    OIDC_CLIENT_ID: "o",
  }));
  assert.deepEqual(all.map((p) => [p.id, p.name]), [
    ["google", "Google"],
    ["microsoft", "Microsoft"],
    ["github", "GitHub"],
    ["oidc", "OpenID"],
  ]);
  assert.equal(
    all[1].options.issuer,
    "https://login.microsoftonline.com/contoso.example/v2.0",
  );
  assert.equal(all[3].options.clientSecret, undefined); // a public client
  assert.equal(
    publicUrlOf(env({}), { hostname: "127.0.0.1", port: 8000 }),
    "http://127.0.0.1:8000",
  );
  assert.equal(
    publicUrlOf(env({ PUBLIC_URL: "https://auth.example.com/x" }), {
      hostname: "0.0.0.0",
      port: 1,
    }),
    "https://auth.example.com",
  );
  assert.throws(
    () =>
      publicUrlOf(env({ PUBLIC_URL: "auth.example.com" }), {
        hostname: "h",
        port: 1,
      }),
    /PUBLIC_URL must be a URL/,
  );
  // This test runs with --allow-all: every host is reachable.
  checkNetAccess(all);
});

globalThis.addEventListener("unload", () => {
  provider.stop();
});

Deno.test("oauth example: main.ts with the dev task's flags refuses a half-set provider and an unreachable issuer, naming them", async () => {
  const dir = await Deno.makeTempDir({ prefix: "oauth-main-" });
  try {
    const half = await runMain({
      DENO_KV_PATH: `${dir}/a.sqlite`,
      GOOGLE_CLIENT_ID: "id-only",
    });
    assert.equal(half.code, 1);
    assert.match(
      half.output,
      /Cannot start: Set both GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET, or neither/,
    );
    const far = await runMain({
      DENO_KV_PATH: `${dir}/b.sqlite`,
      OIDC_ISSUER: "https://sso.example.com",
      OIDC_CLIENT_ID: "app",
    });
    assert.equal(far.code, 1);
    assert.match(
      far.output,
      /OpenID sign-in needs to reach sso.example.com: add it to --allow-net/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("oauth example: the dev task's --allow-net reaches every preset provider (main.ts starts with all three set)", async () => {
  const dir = await Deno.makeTempDir({ prefix: "oauth-main-" });
  const server = await startMain({
    DENO_KV_PATH: `${dir}/c.sqlite`,
    GOOGLE_CLIENT_ID: "g",
    GOOGLE_CLIENT_SECRET: "gs",
    MICROSOFT_CLIENT_ID: "m",
    MICROSOFT_CLIENT_SECRET: "ms",
    GITHUB_CLIENT_ID: "h",
    GITHUB_CLIENT_SECRET: "hs",
  });
  try {
    const page = await fetch(`${server.url}/auth/login`);
    const body = await page.text();
    for (const name of ["Google", "Microsoft", "GitHub"]) {
      assert.match(body, new RegExp(`Sign in with ${name}</a>`));
    }
  } finally {
    await server.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

/** A port nothing listens on: bound once, then closed. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

function ssoAt(issuer: string): OAuthProvider[] {
  return loadOAuthProviders((name) =>
    ({
      OIDC_ISSUER: issuer,
      OIDC_CLIENT_ID: "down-client",
      OIDC_CLIENT_SECRET: "down-secret-0123456789",
      OIDC_NAME: "Test SSO",
    } as Record<string, string>)[name]
  );
}

Deno.test("oauth example: a provider that is down is a 502 login page naming it, not a 500; the used state still goes", async () => {
  // Down from the start: discovery cannot be fetched.
  const down = `http://127.0.0.1:${closedPort()}`;
  const first = await app(ssoAt(down));
  try {
    const [status, body] = await page(browser(first.app), "/auth/oauth/oidc");
    assert.equal(status, 502, body);
    assert.match(body, /Test SSO is not answering/);
    assert.match(body, /<form method="post" action="\/auth\/login"/);
    assert.doesNotMatch(body, /Something went wrong|down-secret/);
  } finally {
    first.kv.close();
  }

  // Discovery answers, the token endpoint is down at the callback.
  const tokenPort = closedPort();
  const discovery = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (): Response =>
      Response.json({
        issuer: origin,
        authorization_endpoint: `${origin}/authorize`,
        token_endpoint: `http://127.0.0.1:${tokenPort}/token`,
        jwks_uri: `${origin}/jwks`,
      }),
  );
  const origin: string = `http://127.0.0.1:${discovery.addr.port}`;
  const second = await app(ssoAt(origin));
  try {
    const agent = browser(second.app);
    const location = new URL(await start(agent));
    const callback = new URL(CALLBACK);
    callback.searchParams.set("code", "some-code");
    callback.searchParams.set("state", location.searchParams.get("state")!);
    const [status, body] = await page(
      agent,
      callback.pathname + callback.search,
    );
    assert.equal(status, 502, body);
    assert.match(body, /Test SSO is not answering/);
    assert.doesNotMatch(body, /Something went wrong|down-secret/);
    // The answer saved the session: the state cannot be tried again.
    const [again, againBody] = await page(
      agent,
      callback.pathname + callback.search,
    );
    assert.equal(again, 400, againBody);
    assert.match(againBody, /The state does not match/);
  } finally {
    second.kv.close();
    await discovery.shutdown();
  }
});

Deno.test("oauth example: two first sign-ins of one new user at once make one account and both sign in (no 500)", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const users = createUserStore(kv);
    // Both callbacks look the email up before either makes the account:
    // the race two tabs (or a registration) can hit, made certain here.
    const waiting: (() => void)[] = [];
    let released = false;
    const racing: UserStore = {
      ...users,
      async findByEmail(email) {
        const found = await users.findByEmail(email);
        if (found === null && !released) {
          await new Promise<void>((resolve) => {
            waiting.push(resolve);
            if (waiting.length === 2) {
              released = true;
              for (const go of waiting) go();
            }
          });
        }
        return found;
      },
    };
    const router = createRouter({
      middleware: [
        session(
          Session,
          createSessionStorage({
            kind: "kv",
            kv,
            secrets: [SECRET],
            secure: false,
          }),
        ),
      ],
    });
    router.map(
      routes.oauth,
      oauthController({
        users: racing,
        passwords: await createPasswords({ cost: 4 }),
        identities: createIdentityStore(kv),
        providers: providers(),
        publicUrl: ORIGIN,
        limits: createMemoryRateLimitStore(),
      }),
    );
    const browsers = [browser(router), browser(router)];
    const callbacks = await Promise.all(
      browsers.map(async (agent) =>
        await signInAtProvider(agent, await start(agent), ORIGIN, "alice")
      ),
    );
    const answers = await Promise.all(
      browsers.map((agent, index) => agent.request(callbacks[index])),
    );
    for (const answer of answers) {
      assert.equal(answer.status, 303, await answer.clone().text());
      await answer.body?.cancel();
    }
    const made = await users.list();
    assert.equal(made.length, 1);
    assert.equal(made[0].email, "alice@example.com");
  } finally {
    kv.close();
  }
});

Deno.test("oauth example: a provider sign-in of an account with two-factor authentication asks for its code first", async () => {
  const { createTwoFactorStore } = await import("./two_factor.ts");
  const { createTotpSecret, totpCode } = await import(
    "@fetchkit/toolkit/totp"
  );
  const { app: router, kv } = await app();
  try {
    assert.equal((await signIn(browser(router), "alice")).status, 303);
    const alice = await createUserStore(kv).findByEmail("alice@example.com");
    const secret = createTotpSecret();
    await createTwoFactorStore(kv).enable(alice!.id, {
      secret,
      lastStep: 0,
      backupCodes: [],
    });
    const agent = browser(router);
    const response = await signIn(agent, "alice", "/profile");
    assert.equal(response.status, 303);
    assert.equal(response.headers.get("Location"), "/auth/two-factor");
    const [status] = await page(agent, "/dashboard");
    assert.equal(status, 302, "not signed in before the code");
    const verified = await agent.request(`${ORIGIN}/auth/two-factor`, {
      method: "POST",
      body: new URLSearchParams({ code: await totpCode(secret) }),
    });
    assert.equal(verified.status, 303);
    assert.equal(verified.headers.get("Location"), "/profile");
    const [after, body] = await page(agent, "/dashboard");
    assert.equal(after, 200);
    assert.match(body, /Alice Provider/);
  } finally {
    kv.close();
  }
});
