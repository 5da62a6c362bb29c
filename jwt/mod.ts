/**
 * JSON Web Token authentication: `jwt()` verifies the
 * `Authorization: Bearer <jwt>` of each request (or a cookie) with a
 * secret, a public key or a JSON Web Key Set, and puts the verified
 * payload under the context key {@linkcode JwtPayload};
 * {@linkcode signJwt} issues tokens. Signatures and claims are checked by
 * `jose`, a maintained JOSE library, not by code of ours.
 *
 * Refused tokens get `401` with an RFC 6750 challenge,
 * `WWW-Authenticate: Bearer realm="api", error="invalid_token",
 * error_description="The token has expired"`, and the description as the
 * body: text, or `{ "error": "..." }` for clients that prefer JSON (as the
 * router answers an `HttpError`).
 *
 * @example
 * ```ts
 * import { createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { jwt, JwtPayload, signJwt } from "@fetchkit/toolkit/jwt-middleware";
 *
 * const secret = "a-secret-of-at-least-32-bytes-for-hs256";
 * const router = createRouter();
 * router.get(
 *   "/me",
 *   jwt({ secret, algorithms: ["HS256"], issuer: "https://auth.example" }),
 *   ({ get }) => Response.json({ user: get(JwtPayload)?.sub }),
 * );
 *
 * const token = await signJwt(
 *   { sub: "ada", iss: "https://auth.example" },
 *   secret,
 *   { algorithm: "HS256", expiresIn: "1h" },
 * );
 * const response = await router.fetch(
 *   new Request("http://localhost/me", { headers: { Authorization: `Bearer ${token}` } }),
 * );
 * await response.json(); // { user: "ada" }
 * ```
 *
 * @module
 */

import {
  createLocalJWKSet,
  createRemoteJWKSet,
  errors,
  importJWK,
  type JWK,
  jwtVerify,
  type JWTVerifyGetKey,
  SignJWT,
} from "jose";
import type { RequestContext } from "../router/context.ts";
import { createContextKey } from "../router/context_key.ts";
import type { ContextKey } from "../router/context_key.ts";
import type { Middleware } from "../router/types.ts";
import { bearerTokenOf } from "../bearer_auth/mod.ts";
import { HttpError } from "../http_error/mod.ts";
import { keepPersonal, markCredential } from "../cache/credential.ts";
import { editHeaders } from "../response/edit_headers.ts";

/** The claims of a verified token (RFC 7519 §4), and any others. */
export interface JwtClaims {
  /** Issuer. */
  iss?: string;
  /** Subject: whom the token is about, usually a user id. */
  sub?: string;
  /** Audience: who the token is for. */
  aud?: string | string[];
  /** Expiry, seconds since the epoch. */
  exp?: number;
  /** Not before, seconds since the epoch. */
  nbf?: number;
  /** Issued at, seconds since the epoch. */
  iat?: number;
  /** Token id. */
  jti?: string;
  /** Any other claim. */
  [claim: string]: unknown;
}

/**
 * The context key of the verified payload: `context.get(JwtPayload)` after
 * `jwt()` let a request through (else `undefined`).
 *
 * @example
 * ```ts
 * import type { Handler } from "@fetchkit/toolkit/fetch-router";
 * import { JwtPayload } from "@fetchkit/toolkit/jwt-middleware";
 *
 * const handler: Handler = ({ get }) => new Response(`hello ${get(JwtPayload)?.sub}`);
 * ```
 */
export const JwtPayload: ContextKey<JwtClaims | undefined> = createContextKey<
  JwtClaims
>();

/** HMAC algorithms, verified with a shared secret. */
export type HmacAlgorithm = "HS256" | "HS384" | "HS512";
/** Public-key algorithms, verified with a public key or a key set. */
export type PublicKeyAlgorithm =
  | "RS256"
  | "RS384"
  | "RS512"
  | "PS256"
  | "PS384"
  | "PS512"
  | "ES256"
  | "ES384"
  | "ES512"
  | "EdDSA"
  | "Ed25519";
/** A JWS algorithm this module accepts (never `none`). */
export type JwtAlgorithm = HmacAlgorithm | PublicKeyAlgorithm;

/** A JSON Web Key Set, as served at a JWKS URL. */
export interface JsonWebKeySet {
  /** The keys. */
  keys: JsonWebKey[];
}

/** Options of {@linkcode jwt}: one of `secret`, `publicKey` or `jwks`. */
export interface JwtOptions {
  /** The shared secret for HS256/384/512: at least as many bytes as the hash (32, 48, 64). */
  secret?: string | Uint8Array;
  /** One public key (a `CryptoKey`, or a public JWK) for RS*, PS*, ES*, EdDSA. */
  publicKey?: CryptoKey | JsonWebKey;
  /**
   * A key set: the URL of a JWKS document (fetched when first needed,
   * cached, and fetched again for a `kid` it lacks, at most once per
   * `jwksCooldownMs`), or the set itself.
   */
  jwks?: string | URL | JsonWebKeySet;
  /**
   * The algorithms accepted: required, so that a token cannot choose its
   * own (`none`, or HS256 signed with the bytes of an RSA public key).
   * HMAC and public-key algorithms cannot be mixed.
   */
  algorithms: readonly JwtAlgorithm[];
  /** The accepted `iss` value(s); tokens without one are refused. */
  issuer?: string | readonly string[];
  /** The accepted `aud` value(s): a token must name at least one. */
  audience?: string | readonly string[];
  /**
   * Seconds of clock difference allowed when checking `exp`, `nbf` and
   * `iat` (a token issued later than now plus this is refused).
   *
   * @default {0}
   */
  clockToleranceSec?: number;
  /**
   * Read the token from this cookie instead of the `Authorization`
   * header. A token is never read from the query string.
   */
  cookie?: string;
  /**
   * The `realm` of the `WWW-Authenticate` challenge.
   *
   * @default {"api"}
   */
  realm?: string;
  /**
   * The longest token looked at; a longer one is refused unread.
   *
   * @default {8192}
   */
  maxTokenLength?: number;
  /**
   * How long a fetched key set is used before it is fetched again.
   *
   * @default {600_000} (10 minutes)
   */
  jwksCacheMs?: number;
  /**
   * The least time between two fetches of the key set, so that tokens
   * with made-up `kid`s cannot make the server fetch it for each request.
   *
   * @default {30_000}
   */
  jwksCooldownMs?: number;
  /**
   * How long to wait for the key set's server.
   *
   * @default {5000}
   */
  jwksTimeoutMs?: number;
}

const HMAC: Record<HmacAlgorithm, { hash: string; bytes: number }> = {
  HS256: { hash: "SHA-256", bytes: 32 },
  HS384: { hash: "SHA-384", bytes: 48 },
  HS512: { hash: "SHA-512", bytes: 64 },
};
const PUBLIC_KEY: ReadonlySet<string> = new Set([
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
]);

const encoder = new TextEncoder();

function isHmac(algorithm: string): algorithm is HmacAlgorithm {
  return Object.hasOwn(HMAC, algorithm);
}

function secretBytes(secret: string | Uint8Array): Uint8Array {
  return typeof secret === "string" ? encoder.encode(secret) : secret;
}

function checkSecretLength(
  bytes: Uint8Array,
  algorithm: HmacAlgorithm,
  where: string,
): void {
  const least = HMAC[algorithm].bytes;
  if (bytes.length < least) {
    throw new TypeError(
      `${where}: the secret for ${algorithm} must be at least ${least} bytes (RFC 7518 §3.2), got ${bytes.length}`,
    );
  }
}

/** Thrown inside the key lookup when a key set cannot be had: a 503. */
class KeySetUnavailable extends Error {}

/** A verification failure as an RFC 6750 error description. */
function describe(error: unknown): string {
  if (error instanceof errors.JWTExpired) return "The token has expired";
  if (error instanceof errors.JWTClaimValidationFailed) {
    switch (error.claim) {
      case "nbf":
        return "The token is not valid yet";
      case "iss":
        return "The token's issuer is not accepted";
      case "aud":
        return "The token's audience is not accepted";
      case "iat":
        return "The token's issue time is not valid";
      default:
        return `The token's ${error.claim} claim is not valid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return "The token's algorithm is not allowed";
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return "The token's signature does not verify";
  }
  if (error instanceof errors.JWKSNoMatchingKey) {
    return "No known key matches the token's kid";
  }
  if (error instanceof errors.JWKSMultipleMatchingKeys) {
    return "Several keys match the token's kid";
  }
  return "The token is malformed";
}

/**
 * The `WWW-Authenticate` challenge: `invalid_token` with its description,
 * or, with no description (no token was sent), the realm alone, as RFC
 * 6750 3.1 asks of a request that lacks any authentication information.
 * Ours never hold quotes or controls.
 */
function challenge(realm: string, description?: string): string {
  return description === undefined
    ? `Bearer realm="${realm}"`
    : `Bearer realm="${realm}", error="invalid_token", error_description="${
      description.replace(/["\\]/g, "\\$&")
    }"`;
}

function cookieValue(header: string | null, name: string): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(";")) {
    const equals = part.indexOf("=");
    if (equals !== -1 && part.slice(0, equals).trim() === name) {
      return part.slice(equals + 1).trim();
    }
  }
  return undefined;
}

function list(
  value: string | readonly string[] | undefined,
): string[] | undefined {
  return value === undefined
    ? undefined
    : typeof value === "string"
    ? [value]
    : [...value];
}

/** Builds the key lookup jose calls with each token's header. */
function keyLookup(
  options: JwtOptions,
  algorithms: readonly JwtAlgorithm[],
): JWTVerifyGetKey {
  const { secret, publicKey, jwks } = options;
  if (secret !== undefined) {
    const bytes = secretBytes(secret);
    // One imported CryptoKey per algorithm, made on first use: jose
    // would import a raw secret again for every token.
    const keys = new Map<string, Promise<CryptoKey>>();
    for (const algorithm of algorithms as HmacAlgorithm[]) {
      checkSecretLength(bytes, algorithm, "jwt()");
    }
    return (header) => {
      const algorithm = header.alg as HmacAlgorithm;
      let key = keys.get(algorithm);
      if (key === undefined) {
        key = crypto.subtle.importKey(
          "raw",
          bytes as Uint8Array<ArrayBuffer>,
          { name: "HMAC", hash: HMAC[algorithm].hash },
          false,
          ["verify"],
        );
        keys.set(algorithm, key);
      }
      return key;
    };
  }
  if (publicKey !== undefined) {
    if (typeof CryptoKey !== "undefined" && publicKey instanceof CryptoKey) {
      if (publicKey.type !== "public") {
        throw new TypeError(
          `jwt(): publicKey must be a public key, got a ${publicKey.type} key`,
        );
      }
      return () => publicKey;
    }
    const jwk = publicKey as JWK;
    if ("d" in jwk || "k" in jwk) {
      throw new TypeError(
        "jwt(): publicKey must be a public JWK (it has a private or secret part)",
      );
    }
    const keys = new Map<string, Promise<CryptoKey | Uint8Array>>();
    return (header) => {
      let key = keys.get(header.alg);
      if (key === undefined) {
        key = importJWK(jwk, header.alg);
        keys.set(header.alg, key);
      }
      return key;
    };
  }
  let getKey: JWTVerifyGetKey;
  if (typeof jwks === "string" || jwks instanceof URL) {
    const url = new URL(jwks);
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new TypeError(
        `jwt(): jwks must be an http(s) URL, got ${url.protocol}`,
      );
    }
    getKey = createRemoteJWKSet(url, {
      cacheMaxAge: options.jwksCacheMs ?? 600_000,
      cooldownDuration: options.jwksCooldownMs ?? 30_000,
      timeoutDuration: options.jwksTimeoutMs ?? 5000,
    });
  } else {
    getKey = createLocalJWKSet(jwks as { keys: JWK[] });
  }
  return async (header, token) => {
    try {
      return await getKey(header, token);
    } catch (error) {
      // A token naming an unknown key is the client's fault; a key set
      // that cannot be fetched or read is not.
      if (
        error instanceof errors.JWKSNoMatchingKey ||
        error instanceof errors.JWKSMultipleMatchingKeys ||
        error instanceof errors.JOSEAlgNotAllowed ||
        error instanceof errors.JOSENotSupported ||
        error instanceof errors.JWSInvalid ||
        error instanceof errors.JWTInvalid
      ) throw error;
      throw new KeySetUnavailable(
        `The JSON Web Key Set could not be fetched: ${
          (error as Error).message
        }`,
        { cause: error },
      );
    }
  };
}

function checkAlgorithms(options: JwtOptions): readonly JwtAlgorithm[] {
  const { algorithms } = options;
  if (!Array.isArray(algorithms) || algorithms.length === 0) {
    throw new TypeError(
      'jwt() needs `algorithms`, the accepted algorithms (such as ["HS256"] or ["ES256"])',
    );
  }
  for (const algorithm of algorithms) {
    if (!isHmac(algorithm) && !PUBLIC_KEY.has(algorithm)) {
      throw new TypeError(
        `jwt(): unknown or unsafe algorithm ${
          JSON.stringify(algorithm)
        }; accepted: ${[...Object.keys(HMAC), ...PUBLIC_KEY].join(", ")}`,
      );
    }
  }
  const sources = [options.secret, options.publicKey, options.jwks].filter(
    (source) => source !== undefined,
  ).length;
  if (sources !== 1) {
    throw new TypeError(
      "jwt() needs exactly one of `secret`, `publicKey` and `jwks`",
    );
  }
  const hmac = algorithms.filter(isHmac);
  if (options.secret !== undefined && hmac.length !== algorithms.length) {
    throw new TypeError(
      "jwt(): a `secret` verifies HS256, HS384 and HS512 only; use `publicKey` or `jwks` for " +
        algorithms.filter((a) => !isHmac(a)).join(", "),
    );
  }
  if (options.secret === undefined && hmac.length > 0) {
    throw new TypeError(
      `jwt(): ${
        hmac.join(", ")
      } need a \`secret\`; a public key must not verify HMAC tokens (the HS/RS confusion attack)`,
    );
  }
  return algorithms;
}

/**
 * Creates middleware that verifies the request's JWT and puts its payload
 * under {@linkcode JwtPayload}, or answers `401` with
 * `WWW-Authenticate: Bearer realm="api", error="invalid_token",
 * error_description="..."` when the token is malformed, longer than
 * `maxTokenLength`, signed with another algorithm or key, expired
 * (`exp`), not valid yet (`nbf`), issued in the future (`iat`, beyond
 * `clockToleranceSec`), or for another issuer or audience. A request with
 * no token gets `WWW-Authenticate: Bearer realm="api"` alone (RFC 6750
 * 3.1: no error code when no credentials were sent), as `bearerAuth()`
 * answers, with the same description as the body.
 *
 * A page built after a token was verified is personal: `cache()` never
 * stores it (unless it says `Cache-Control: public`), and with `cookie`
 * the answer gets `Cache-Control: no-store` unless it says `public`,
 * `private` or `no-store` itself, as `session()` marks a page built from
 * the session: caches downstream do not key on the cookie.
 * When a key set URL cannot be fetched, it answers `503` with
 * `Retry-After` (the server's problem, not the token's).
 *
 * @example A key set from your identity provider
 * ```ts
 * import { jwt } from "@fetchkit/toolkit/jwt-middleware";
 *
 * const auth = jwt({
 *   jwks: "https://auth.example/.well-known/jwks.json",
 *   algorithms: ["RS256", "ES256"],
 *   issuer: "https://auth.example/",
 *   audience: "api://orders",
 *   clockToleranceSec: 30,
 * });
 * ```
 *
 * @example The token in a cookie
 * ```ts
 * import { jwt } from "@fetchkit/toolkit/jwt-middleware";
 *
 * const auth = jwt({
 *   secret: "a-secret-of-at-least-32-bytes-for-hs256",
 *   algorithms: ["HS256"],
 *   cookie: "access_token",
 * });
 * ```
 *
 * @param options The key (`secret`, `publicKey` or `jwks`), `algorithms`,
 * and the claims to check.
 * @returns The middleware.
 * @throws {TypeError} When `algorithms` is missing, empty, or names an
 * unknown algorithm or mixes HMAC with public-key algorithms; when not
 * exactly one key source is given; when a secret is shorter than its
 * algorithm needs.
 */
export function jwt(options: JwtOptions): Middleware {
  const algorithms = checkAlgorithms(options);
  const {
    issuer,
    audience,
    clockToleranceSec = 0,
    cookie,
    realm = "api",
    maxTokenLength = 8192,
  } = options;
  if (!/^[\x20-\x21\x23-\x5b\x5d-\x7e]*$/.test(realm)) {
    throw new TypeError(
      "jwt(): realm must be printable ASCII without quotes or backslashes",
    );
  }
  if (!Number.isFinite(clockToleranceSec) || clockToleranceSec < 0) {
    throw new TypeError(
      `jwt(): clockToleranceSec must be a number of seconds >= 0, got ${clockToleranceSec}`,
    );
  }
  const getKey = keyLookup(options, algorithms);
  const verifyOptions = {
    algorithms: [...algorithms],
    issuer: list(issuer),
    audience: list(audience),
    clockTolerance: clockToleranceSec,
  };
  const where = cookie === undefined
    ? "send Authorization: Bearer <token>"
    : `send the ${cookie} cookie`;

  // Answered here, as the router answers an HttpError (JSON for clients
  // that prefer it), without passing through the app's onError.
  function refuse(
    description: string,
    request: Request,
    tokenSent = true,
  ): Response {
    return new HttpError(401, description, {
      headers: {
        "WWW-Authenticate": challenge(
          realm,
          tokenSent ? description : undefined,
        ),
      },
    }).toResponse(request);
  }

  /** The token; `null` when it is too long to look at; "" when malformed. */
  function tokenOf(context: RequestContext): string | undefined | null {
    const headers = context.request.headers;
    const raw = cookie === undefined
      ? headers.get("Authorization")
      : cookieValue(headers.get("Cookie"), cookie) ?? null;
    if (raw === null) return undefined;
    // "Bearer " and spaces around: a longer value holds a longer token.
    if (raw.length > maxTokenLength + 16) return null;
    if (cookie !== undefined) return raw;
    const token = bearerTokenOf(raw, Infinity);
    return token === undefined ? undefined : token;
  }

  return async (context, next) => {
    const { request } = context;
    const token = tokenOf(context);
    if (
      token === null || (token !== undefined && token.length > maxTokenLength)
    ) {
      return refuse(
        `The token is longer than ${maxTokenLength} characters`,
        request,
      );
    }
    if (token === undefined || token === "") {
      return token === undefined
        ? refuse(`No token: ${where}`, request, false)
        : refuse("The token is malformed", request);
    }
    let payload: JwtClaims;
    try {
      ({ payload } = await jwtVerify(token, getKey, verifyOptions));
    } catch (error) {
      if (error instanceof KeySetUnavailable) {
        console.error(error.message);
        return new HttpError(503, error.message, {
          headers: { "Retry-After": "30" },
          cause: error.cause,
        }).toResponse(request);
      }
      return refuse(describe(error), request);
    }
    // jose checks `iat` only against maxTokenAge: a token issued in the
    // future (a skewed or forged issuer) is refused here.
    if (
      typeof payload.iat === "number" &&
      payload.iat > Math.floor(Date.now() / 1000) + clockToleranceSec
    ) {
      return refuse("The token's issue time is not valid", request);
    }
    context.set(JwtPayload, payload);
    // What comes next answers this token's holder: cache() keeps it out,
    // and, the token being in a cookie no cache keys on, so do others.
    markCredential(context);
    if (cookie === undefined) return next();
    return editHeaders(await next(), keepPersonal, undefined);
  };
}

/** Options of {@linkcode signJwt}. */
export interface SignJwtOptions {
  /** The signing algorithm; HS* take a string secret. */
  algorithm: JwtAlgorithm;
  /**
   * Lifetime: seconds, or a span such as `"15m"`, `"2h"`, `"7d"`; sets
   * `exp`. Without it the token never expires: prefer setting it.
   */
  expiresIn?: number | string;
  /** `kid` in the header, so verifiers pick the key from a set. */
  keyId?: string;
}

/**
 * Signs a JWT. `iat` is set to now; `exp` from `expiresIn`. Other claims
 * (`sub`, `iss`, `aud`, ...) come from `payload`.
 *
 * @example
 * ```ts
 * import { signJwt } from "@fetchkit/toolkit/jwt-middleware";
 *
 * const token = await signJwt(
 *   { sub: "user-42", aud: "api" },
 *   "a-secret-of-at-least-32-bytes-for-hs256",
 *   { algorithm: "HS256", expiresIn: "15m" },
 * );
 * token.split(".").length; // 3
 * ```
 *
 * @example With an ES256 key pair
 * ```ts
 * import { signJwt } from "@fetchkit/toolkit/jwt-middleware";
 *
 * const { privateKey } = await crypto.subtle.generateKey(
 *   { name: "ECDSA", namedCurve: "P-256" },
 *   true,
 *   ["sign", "verify"],
 * );
 * const token = await signJwt({ sub: "svc" }, privateKey, {
 *   algorithm: "ES256",
 *   expiresIn: 60,
 *   keyId: "2026-11",
 * });
 * ```
 *
 * @param payload The claims.
 * @param key A string secret for HS*; a private `CryptoKey` or private JWK otherwise.
 * @param options `algorithm`, `expiresIn` and `keyId`.
 * @returns The token (`header.payload.signature`).
 * @throws {TypeError} When the algorithm is unknown, or the key does not
 * suit it (a string for a public-key algorithm, a secret too short).
 */
export async function signJwt(
  payload: JwtClaims,
  key: string | Uint8Array | CryptoKey | JsonWebKey,
  options: SignJwtOptions,
): Promise<string> {
  const { algorithm, expiresIn, keyId } = options;
  let signingKey: CryptoKey | Uint8Array;
  if (isHmac(algorithm)) {
    if (typeof key !== "string" && !(key instanceof Uint8Array)) {
      throw new TypeError(`signJwt(): ${algorithm} signs with a string secret`);
    }
    signingKey = secretBytes(key);
    checkSecretLength(signingKey, algorithm, "signJwt()");
  } else if (PUBLIC_KEY.has(algorithm)) {
    if (typeof key === "string" || key instanceof Uint8Array) {
      throw new TypeError(
        `signJwt(): ${algorithm} signs with a private CryptoKey or JWK, not a string`,
      );
    }
    signingKey = typeof CryptoKey !== "undefined" && key instanceof CryptoKey
      ? key
      : await importJWK(key as JWK, algorithm) as CryptoKey;
  } else {
    throw new TypeError(
      `signJwt(): unknown algorithm ${JSON.stringify(algorithm)}`,
    );
  }
  const jwt = new SignJWT(payload).setProtectedHeader({
    alg: algorithm,
    typ: "JWT",
    ...(keyId === undefined ? {} : { kid: keyId }),
  }).setIssuedAt();
  if (expiresIn !== undefined) {
    jwt.setExpirationTime(
      typeof expiresIn === "number"
        ? Math.floor(Date.now() / 1000) + expiresIn
        : expiresIn,
    );
  }
  return await jwt.sign(signingKey);
}
