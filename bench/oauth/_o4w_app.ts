// The same small app as oauth/_test_app.ts, its sign-in written with
// oauth4webapi (3.8.8) instead of createOAuthClient(), for the comparison
// in roundtrip.ts. It does what createOAuthClient() does: discovery once,
// PKCE S256, state and nonce in the session, RFC 9207 iss, the code
// exchange, the ID token's claims, its signature against the JWKS (which
// oauth4webapi leaves to validateApplicationLevelSignature()), userinfo.
import * as oauth from "oauth4webapi";
import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";

const Sessions = createContextKey<Session>();
const insecure = { [oauth.allowInsecureRequests]: true };

/** The app for `issuer`, with a confidential client. */
export function oauth4webapiApp(
  issuer: string,
  clientId: string,
  clientSecret: string,
  redirectUri: string,
): Router {
  const issuerUrl = new URL(issuer);
  let server: Promise<oauth.AuthorizationServer> | undefined;
  const discover = () =>
    server ??= oauth.discoveryRequest(issuerUrl, insecure).then((response) =>
      oauth.processDiscoveryResponse(issuerUrl, response)
    );
  const client: oauth.Client = { client_id: clientId };
  const auth = oauth.ClientSecretBasic(clientSecret);
  const jwks: oauth.JWKSCacheInput = {};

  const app = createRouter({
    middleware: [
      session(
        Sessions,
        createMemorySessionStorage({
          cookie: { secrets: ["oauth-test-secret-0123456789abcdef"] },
        }),
      ),
    ],
  });
  app.get("/login", async (context) => {
    const as = await discover();
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const nonce = oauth.generateRandomNonce();
    context.get(Sessions)!.set("o4w", { verifier, state, nonce });
    const url = new URL(as.authorization_endpoint!);
    url.searchParams.set("client_id", clientId);
    url.searchParams.set("redirect_uri", redirectUri);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("scope", "openid email profile");
    url.searchParams.set(
      "code_challenge",
      await oauth.calculatePKCECodeChallenge(verifier),
    );
    url.searchParams.set("code_challenge_method", "S256");
    url.searchParams.set("state", state);
    url.searchParams.set("nonce", nonce);
    return Response.redirect(url, 302);
  });
  app.get("/callback", async (context) => {
    const as = await discover();
    const current = context.get(Sessions)!;
    const pending = current.get("o4w") as {
      verifier: string;
      state: string;
      nonce: string;
    };
    current.unset("o4w");
    const params = oauth.validateAuthResponse(
      as,
      client,
      context.url,
      pending.state,
    );
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      redirectUri,
      pending.verifier,
      insecure,
    );
    const result = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      response,
      { expectedNonce: pending.nonce, requireIdToken: true },
    );
    await oauth.validateApplicationLevelSignature(as, response, {
      ...insecure,
      [oauth.jwksCache]: jwks,
    });
    const claims = oauth.getValidatedIdTokenClaims(result)!;
    const info = await oauth.processUserInfoResponse(
      as,
      client,
      claims.sub,
      await oauth.userInfoRequest(as, client, result.access_token, insecure),
    );
    return Response.json({ claims: { ...info, ...claims } });
  });
  return app;
}
