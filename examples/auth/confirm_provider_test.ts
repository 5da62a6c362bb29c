// "Confirm with <provider>" on /auth/confirm, against panva's
// oidc-provider on 127.0.0.1 (a subprocess), by fetch with a cookie jar
// through the provider's own login page: the provider is asked to sign
// the user in again (prompt=login, max_age=0), and the callback marks the
// session only for the identity linked to the account, with a recent
// auth_time; another provider account, a stale sign-in, a replayed or
// forged state are refused with a page that says what to do.
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { createApp } from "./app.ts";
import { createSessionStorage } from "./sessions.ts";
import { ORIGIN, SECRET } from "./_test_app.ts";
import { browser } from "./_test_provider_agent.ts";
import { loadOAuthProviders, type OAuthProvider } from "./oauth.ts";
import { type Agent, signInAtProvider } from "../../oauth/_test_agent.ts";
import {
  CONFIDENTIAL_CLIENT,
  startOidcProvider,
} from "../../oauth/_test_oidc_provider.ts";

const CALLBACK = `${ORIGIN}/auth/oauth/oidc/callback`;
const provider = await startOidcProvider([CALLBACK]);
const GUARDED = "/profile/two-factor";

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

async function app(): Promise<{ app: Router; kv: Deno.Kv }> {
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
    oauthProviders: providers(),
    publicUrl: ORIGIN,
  });
  return { app: router, kv };
}

/** Signs `login` in with the provider: the app's answer to the callback. */
async function signIn(agent: Agent, login: string): Promise<void> {
  const started = await agent.request(`${ORIGIN}/auth/oauth/oidc`);
  const callback = await signInAtProvider(
    agent,
    started.headers.get("Location")!,
    ORIGIN,
    login,
  );
  const answer = await agent.request(callback);
  assert.equal(answer.status, 303, await answer.clone().text());
  await answer.body?.cancel();
}

async function page(agent: Agent, path: string): Promise<[number, string]> {
  const response = await agent.request(ORIGIN + path, {
    headers: { Accept: "text/html" },
  });
  return [response.status, await response.text()];
}

/**
 * Presses "Confirm with Test SSO" on the confirm page for `returnTo`: the
 * provider's authorization URL the app sends the browser on to.
 */
async function pressConfirm(agent: Agent, returnTo: string): Promise<URL> {
  const [status, body] = await page(
    agent,
    `/auth/confirm?returnTo=${encodeURIComponent(returnTo)}`,
  );
  assert.equal(status, 200);
  const action =
    /<form method="post" action="(\/auth\/confirm\/provider\/oidc[^"]*)"/
      .exec(body)?.[1];
  assert.ok(action, `no "Confirm with Test SSO" form: ${body}`);
  assert.match(body, />Confirm with Test SSO</);
  const answer = await agent.request(ORIGIN + action.replaceAll("&amp;", "&"), {
    method: "POST",
    body: new URLSearchParams(),
  });
  assert.equal(answer.status, 200, await answer.clone().text());
  const text = await answer.text();
  // A page that goes on to the provider by itself (a form's redirect to
  // another origin would break the page's form-action 'self'), with a
  // link for a browser that does not.
  const to = /<a id="continue" href="([^"]+)"/.exec(text)?.[1];
  assert.ok(to, text);
  const url = new URL(to.replaceAll("&amp;", "&"));
  assert.equal(answer.headers.get("Refresh"), `0; url=${url.href}`);
  return url;
}

Deno.test("confirm with provider: the linked account signs in again at the provider and comes back confirmed", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    await signIn(agent, "alice");
    // Not confirmed yet: the guarded page sends to the confirm page.
    const guarded = await agent.request(ORIGIN + GUARDED);
    assert.equal(guarded.status, 303);
    assert.equal(
      guarded.headers.get("Location"),
      `/auth/confirm?returnTo=${encodeURIComponent(GUARDED)}`,
    );
    // No password or passkey here: the provider is the way, not a reset.
    const [, confirmPage] = await page(
      agent,
      `/auth/confirm?returnTo=${encodeURIComponent(GUARDED)}`,
    );
    assert.doesNotMatch(confirmPage, /set a password with/);

    const authorizeUrl = await pressConfirm(agent, GUARDED);
    assert.equal(authorizeUrl.origin, provider.issuer);
    assert.equal(authorizeUrl.searchParams.get("prompt"), "login");
    assert.equal(authorizeUrl.searchParams.get("max_age"), "0");
    // The provider asks for the login again, though alice has a session there.
    const atProvider = await agent.follow(authorizeUrl, ORIGIN);
    assert.notEqual(atProvider.url.origin, ORIGIN);
    assert.match(await atProvider.response.text(), /name="login"/);

    const callback = await signInAtProvider(
      agent,
      authorizeUrl.href,
      ORIGIN,
      "alice",
    );
    const back = await agent.request(callback);
    assert.equal(back.status, 303, await back.clone().text());
    assert.equal(back.headers.get("Location"), GUARDED);
    assert.equal((await page(agent, GUARDED))[0], 200);

    // The same callback again: its state was used.
    const replayed = await agent.request(callback, {
      headers: { Accept: "text/html" },
    });
    assert.equal(replayed.status, 400);
    const text = await replayed.text();
    assert.match(text, /Confirming with Test SSO failed/);
    assert.match(text, /Press “Confirm with Test SSO” to start again/);
  } finally {
    kv.close();
  }
});

Deno.test("confirm with provider: another account at the provider is refused and nothing is marked", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    await signIn(agent, "alice");
    const authorizeUrl = await pressConfirm(agent, GUARDED);
    // At the provider, someone signs in as bob instead (signed out of
    // alice there first: the provider would offer to end her session).
    agent.jars.delete(new URL(provider.issuer).origin);
    const callback = await signInAtProvider(
      agent,
      authorizeUrl.href,
      ORIGIN,
      "bob",
    );
    const refused = await agent.request(callback);
    assert.equal(refused.status, 403);
    const text = await refused.text();
    assert.match(text, /not the Test SSO account linked to alice@example.com/);
    assert.match(text, /sign in there with the account you linked/);
    assert.equal((await agent.request(ORIGIN + GUARDED)).status, 303);
  } finally {
    kv.close();
  }
});

Deno.test("confirm with provider: a sign-in at the provider older than 5 minutes is refused", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    await signIn(agent, "alice");
    const authorizeUrl = await pressConfirm(agent, GUARDED);
    const callback = await signInAtProvider(
      agent,
      authorizeUrl.href,
      ORIGIN,
      "alice",
    );
    // The callback is checked 6 minutes after alice signed in there.
    const clock = FakeTimers.withGlobal(globalThis).install({
      now: Date.now() + 6 * 60 * 1000,
      toFake: ["Date"],
    });
    let refused: Response;
    try {
      refused = await agent.request(callback);
    } finally {
      clock.uninstall();
    }
    assert.equal(refused.status, 400);
    const text = await refused.text();
    assert.match(text, /Confirming with Test SSO failed/);
    assert.match(text, /at most 300 s/);
    assert.equal((await agent.request(ORIGIN + GUARDED)).status, 303);
  } finally {
    kv.close();
  }
});

Deno.test("confirm with provider: a forged state is refused; returnTo cannot leave the site", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    await signIn(agent, "alice");
    const authorizeUrl = await pressConfirm(agent, "//evil.example/x");
    const callback = await signInAtProvider(
      agent,
      authorizeUrl.href,
      ORIGIN,
      "alice",
    );
    const forged = new URL(callback);
    forged.searchParams.set("state", "A".repeat(43));
    const refused = await agent.request(forged);
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /state does not match/);
    assert.equal((await agent.request(ORIGIN + GUARDED)).status, 303);
    // The real one still works, and lands on the app's safe default.
    const back = await agent.request(callback);
    assert.equal(back.status, 303);
    assert.equal(back.headers.get("Location"), "/dashboard");
  } finally {
    kv.close();
  }
});

Deno.test("confirm with provider: only a linked provider is offered; guests go to the login page", async () => {
  const { app: router, kv } = await app();
  try {
    // A password account with no provider linked: no button, and the
    // start is refused.
    const agent = browser(router);
    const registered = await agent.request(`${ORIGIN}/auth/register`, {
      method: "POST",
      body: new URLSearchParams({
        email: "carol@example.com",
        password: "carol-password-1",
        name: "Carol",
      }),
    });
    assert.equal(registered.status, 303);
    const [, body] = await page(agent, "/auth/confirm");
    assert.doesNotMatch(body, /Confirm with Test SSO/);
    assert.match(body, /name="password"/);
    const start = await agent.request(`${ORIGIN}/auth/confirm/provider/oidc`, {
      method: "POST",
      body: new URLSearchParams(),
    });
    assert.equal(start.status, 404);
    await start.body?.cancel();

    const guest = await browser(router).request(
      `${ORIGIN}/auth/confirm/provider/oidc`,
      { method: "POST", body: new URLSearchParams() },
    );
    assert.equal(guest.status, 302);
    assert.match(guest.headers.get("Location")!, /^\/auth\/login/);
  } finally {
    kv.close();
  }
});

Deno.test("confirm with provider: a plain sign-in's callback arriving once signed in marks nothing", async () => {
  const { app: router, kv } = await app();
  try {
    const agent = browser(router);
    // Two tabs start a sign-in; the second finishes first.
    const first = await agent.request(`${ORIGIN}/auth/oauth/oidc`);
    const firstCallback = await signInAtProvider(
      agent,
      first.headers.get("Location")!,
      ORIGIN,
      "alice",
    );
    await signIn(agent, "alice");
    // The first tab's callback (alice signed in there just now) is no
    // confirmation: it asked for no max_age.
    const late = await agent.request(firstCallback);
    assert.equal(late.status, 302);
    assert.equal(late.headers.get("Location"), "/dashboard");
    assert.equal((await agent.request(ORIGIN + GUARDED)).status, 303);
  } finally {
    kv.close();
  }
});
