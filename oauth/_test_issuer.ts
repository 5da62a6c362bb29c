// Test helper: a small OpenID Provider and GitHub-like OAuth 2 server of
// our own, on serve() (so it runs on Deno, Node and Bun), for the ID token
// faults a certified provider never makes: another key, an expired token,
// a foreign issuer or audience, a wrong nonce. It checks what a provider
// checks: the client, the redirect URI, the PKCE verifier (S256), and
// codes are single use.
import {
  exportJWK,
  exportSPKI,
  generateKeyPair,
  type JWK,
  SignJWT,
} from "jose";
import { sha256 } from "@noble/hashes/sha2.js";
import { serve } from "@fetchkit/toolkit/serve";
import { toBase64Url } from "../runtime/base64.ts";

/** How the next ID token is made wrong (or right, when empty). */
export interface Fault {
  /** Signed with a key that is not in the JWKS (under the JWKS's `kid`). */
  otherKey?: boolean;
  /** Signed with a key under a `kid` the JWKS does not have. */
  unknownKid?: boolean;
  /** Seconds from now; negative is in the past. */
  expiresIn?: number;
  iss?: string;
  aud?: string | string[];
  nonce?: string;
  /** Leave the ID token out of the token answer. */
  noIdToken?: boolean;
  /** The token endpoint answers this error instead. */
  tokenError?: string;
  /**
   * Alg confusion: `none` (unsigned), or HS256 keyed with the provider's
   * public key (its PEM), which a naive verifier takes as the secret.
   */
  forgedAlg?: "none" | "HS256";
  /** No `kid` in the header (the JWKS then has two keys: see `twoKeys`). */
  noKid?: boolean;
  /** `iat` this many seconds from now (positive: issued in the future). */
  iatIn?: number;
}

export interface TestIssuer {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The fault of the next token answer (reset after it). */
  fault: Fault;
  /** Claims of the signed-in user. */
  user: Record<string, unknown>;
  /** GitHub's `/user/emails` answer. */
  emails: unknown[];
  /** Discovery lists these as `id_token_signing_alg_values_supported`. */
  algs: string[];
  /** The JWKS holds a second key (a rotation), both without use of kid. */
  twoKeys: boolean;
  /** The JWKS endpoint answers this status (and no keys) instead. */
  jwksStatus?: number;
  /** GitHub's `/user` answers this status instead. */
  userStatus?: number;
  /** The last token request's form, for checks. */
  lastTokenRequest?: URLSearchParams;
  lastTokenAuthorization?: string | null;
  /**
   * Answers a request instead of the issuer when it returns a response
   * (a redirect, an outsized or stalled body, an outage).
   */
  override?: (
    request: Request,
    url: URL,
  ) => Response | Promise<Response> | undefined;
  stop(): Promise<void>;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  challenge: string;
  nonce?: string;
}

/** Starts the issuer on a free 127.0.0.1 port. */
export async function startTestIssuer(): Promise<TestIssuer> {
  const good = await generateKeyPair("ES256", { extractable: true });
  const bad = await generateKeyPair("ES256");
  const next = await generateKeyPair("ES256");
  const goodPem = await exportSPKI(good.publicKey);
  const nextJwk: JWK = {
    ...await exportJWK(next.publicKey),
    kid: "k0",
    alg: "ES256",
    use: "sig",
  };
  const jwk: JWK = {
    ...await exportJWK(good.publicKey),
    kid: "k1",
    alg: "ES256",
    use: "sig",
  };
  const grants = new Map<string, Grant>();
  let origin = "";

  const state: TestIssuer = {
    issuer: "",
    clientId: "mini-client",
    clientSecret: "mini-client-secret-0123456789",
    fault: {},
    user: {
      sub: "user-1",
      email: "mini@example.com",
      email_verified: true,
      name: "Mini User",
    },
    emails: [],
    algs: ["ES256"],
    twoKeys: false,
    stop: async () => {},
  };

  async function idToken(grant: Grant, fault: Fault): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const kid = fault.unknownKid ? "k2" : "k1";
    const claims = {
      ...state.user,
      nonce: fault.nonce ?? grant.nonce,
      iss: fault.iss ?? origin,
      aud: fault.aud ?? grant.clientId,
      iat: now + (fault.iatIn ?? 0),
      exp: now + (fault.expiresIn ?? 300),
    };
    if (fault.forgedAlg === "none") {
      const part = (value: unknown) =>
        toBase64Url(new TextEncoder().encode(JSON.stringify(value)));
      return `${part({ alg: "none", kid })}.${part(claims)}.`;
    }
    if (fault.forgedAlg === "HS256") {
      return await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid })
        .sign(new TextEncoder().encode(goodPem));
    }
    return await new SignJWT(claims)
      .setProtectedHeader(
        fault.noKid ? { alg: "ES256" } : { alg: "ES256", kid },
      )
      .sign(
        fault.otherKey || fault.unknownKid ? bad.privateKey : good.privateKey,
      );
  }

  function clientOf(
    request: Request,
    form: URLSearchParams,
  ): string | undefined {
    const basic = request.headers.get("Authorization");
    if (basic?.startsWith("Basic ")) {
      const [id, secret] = atob(basic.slice(6)).split(":").map(
        decodeURIComponent,
      );
      return secret === state.clientSecret ? id : undefined;
    }
    return form.get("client_secret") === state.clientSecret
      ? form.get("client_id") ?? undefined
      : undefined;
  }

  function authorize(url: URL): Response {
    const p = url.searchParams;
    if (p.get("client_id") !== state.clientId) {
      return new Response("unknown client", { status: 400 });
    }
    if (p.get("code_challenge_method") !== "S256" || !p.get("code_challenge")) {
      return new Response("PKCE required", { status: 400 });
    }
    const code = crypto.randomUUID();
    grants.set(code, {
      clientId: p.get("client_id")!,
      redirectUri: p.get("redirect_uri")!,
      challenge: p.get("code_challenge")!,
      nonce: p.get("nonce") ?? undefined,
    });
    const back = new URL(p.get("redirect_uri")!);
    back.searchParams.set("code", code);
    back.searchParams.set("state", p.get("state")!);
    if (url.pathname === "/authorize") back.searchParams.set("iss", origin);
    return Response.redirect(back, 302);
  }

  async function token(request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    state.lastTokenRequest = form;
    state.lastTokenAuthorization = request.headers.get("Authorization");
    const fault = state.fault;
    state.fault = {};
    const error = (code: string) =>
      Response.json({ error: code }, { status: 400 });
    if (fault.tokenError) return error(fault.tokenError);
    if (clientOf(request, form) !== state.clientId) {
      return error("invalid_client");
    }
    const grant = grants.get(form.get("code") ?? "");
    grants.delete(form.get("code") ?? "");
    if (!grant || grant.redirectUri !== form.get("redirect_uri")) {
      return error("invalid_grant");
    }
    const verifier = form.get("code_verifier") ?? "";
    if (
      toBase64Url(sha256(new TextEncoder().encode(verifier))) !==
        grant.challenge
    ) {
      return error("invalid_grant");
    }
    const answer: Record<string, unknown> = {
      access_token: "at-" + crypto.randomUUID(),
      token_type: "Bearer",
      expires_in: 3600,
    };
    if (grant.nonce !== undefined && !fault.noIdToken) {
      answer.id_token = await idToken(grant, fault);
    }
    return Response.json(answer);
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const overridden = await state.override?.(request, url);
    if (overridden !== undefined) return overridden;
    switch (url.pathname) {
      case "/.well-known/openid-configuration":
        return Response.json({
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          jwks_uri: `${origin}/jwks`,
          userinfo_endpoint: `${origin}/userinfo`,
          authorization_response_iss_parameter_supported: true,
          id_token_signing_alg_values_supported: state.algs,
          token_endpoint_auth_methods_supported: [
            "client_secret_basic",
            "client_secret_post",
          ],
        });
      // Multi-tenant, as Microsoft's common endpoint: the issuer is a
      // pattern, and no iss comes with the authorization answer.
      case "/common/v2.0/.well-known/openid-configuration":
        return Response.json({
          issuer: `${origin}/{tenantid}/v2.0`,
          authorization_endpoint: `${origin}/common/authorize`,
          token_endpoint: `${origin}/token`,
          jwks_uri: `${origin}/jwks`,
          id_token_signing_alg_values_supported: ["ES256"],
        });
      case "/jwks":
        if (state.jwksStatus !== undefined) {
          return new Response("down for maintenance", {
            status: state.jwksStatus,
          });
        }
        return Response.json({
          keys: state.twoKeys ? [nextJwk, jwk] : [jwk],
        });
      case "/common/authorize":
      case "/authorize":
      case "/login/oauth/authorize":
        return authorize(url);
      case "/token":
      case "/login/oauth/access_token":
        return await token(request);
      case "/user":
        if (state.userStatus !== undefined) {
          return new Response("unicorn", { status: state.userStatus });
        }
        return Response.json({
          id: 4242,
          login: "octo",
          name: null,
          avatar_url: "https://avatars.example/4242",
        });
      case "/user/emails":
        return Response.json(state.emails);
      default:
        return new Response("Not Found", { status: 404 });
    }
  }

  const server = serve(handle, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  origin = `http://127.0.0.1:${server.addr.port}`;
  state.issuer = origin;
  state.stop = () => server.shutdown();
  return state;
}

/** Runs `fn` with a fresh issuer, stopped afterwards whatever `fn` does. */
export async function withIssuer(
  fn: (issuer: TestIssuer) => Promise<void>,
): Promise<void> {
  const issuer = await startTestIssuer();
  try {
    await fn(issuer);
  } finally {
    await issuer.stop();
  }
}
