// Linking by a provider's verified email uses the app's one email
// normalisation: panva's oidc-provider verifies "\u212Aate@example.com"
// (a Kelvin sign), which toLowerCase() turns into kate@example.com; the
// sign-in must make a new account, not open Kate's.
import assert from "node:assert/strict";
import type { Router } from "@fetchkit/toolkit/fetch-router";
import { createApp } from "./app.ts";
import { createSessionStorage } from "./sessions.ts";
import { ORIGIN, SECRET } from "./_test_app.ts";
import { loadOAuthProviders } from "./oauth.ts";
import { createUserStore } from "./users.ts";
import { Agent, signInAtProvider } from "../../oauth/_test_agent.ts";
import {
  CONFIDENTIAL_CLIENT,
  startOidcProvider,
} from "../../oauth/_test_oidc_provider.ts";

const CALLBACK = `${ORIGIN}/auth/oauth/oidc/callback`;

Deno.test("oauth example: a verified \\u212Aate@example.com does not open kate@example.com", async () => {
  const provider = await startOidcProvider([CALLBACK]);
  const kv = await Deno.openKv(":memory:");
  try {
    const router: Router = await createApp({
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
      oauthProviders: loadOAuthProviders((name) =>
        ({
          OIDC_ISSUER: provider.issuer,
          OIDC_CLIENT_ID: CONFIDENTIAL_CLIENT.clientId,
          OIDC_CLIENT_SECRET: CONFIDENTIAL_CLIENT.clientSecret,
          OIDC_NAME: "Test SSO",
        } as Record<string, string>)[name]
      ),
      publicUrl: ORIGIN,
    });
    const browser = () =>
      new Agent().route(ORIGIN, async (request) => {
        const headers = new Headers(request.headers);
        headers.set("sec-fetch-site", "same-origin");
        return await router.fetch(new Request(request, { headers }), {
          remoteAddr: { transport: "tcp", hostname: "10.7.0.1", port: 50000 },
        });
      });
    const users = createUserStore(kv);

    const kate = browser();
    const registered = await kate.request(`${ORIGIN}/auth/register`, {
      method: "POST",
      body: new URLSearchParams({
        email: "kate@example.com",
        password: "kate-password-1",
        name: "Kate",
      }),
    });
    assert.equal(registered.status, 303);
    const kateId = (await users.findByEmail("kate@example.com"))!.id;

    const mallory = browser();
    const start = await mallory.request(`${ORIGIN}/auth/oauth/oidc`);
    assert.equal(start.status, 302);
    const callback = await signInAtProvider(
      mallory,
      start.headers.get("Location")!,
      ORIGIN,
      "kelvin",
    );
    const done = await mallory.request(callback);
    assert.equal(done.status, 303, await done.clone().text());
    const dashboard = await mallory.request(`${ORIGIN}/dashboard`, {
      headers: { Accept: "text/html" },
    });
    const page = await dashboard.text();
    assert.doesNotMatch(page, /kate@example\.com/);
    assert.doesNotMatch(page, /is now linked to/);
    // Kate's account is as she left it; the provider's user is another.
    const kateNow = (await users.findById(kateId))!;
    assert.equal(kateNow.name, "Kate");
    assert.ok(!kateNow.passwordUnusable);
    const other = await users.findByEmail("\u212Aate@example.com");
    assert.ok(other && other.id !== kateId);
  } finally {
    kv.close();
    await provider.stop();
  }
});
