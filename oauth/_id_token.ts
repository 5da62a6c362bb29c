/**
 * ID token checks (OpenID Connect Core 3.1.3.7) on `jose`: the signature
 * against the provider's JWKS, `iss`, `aud` (and `azp` when there are
 * several audiences), `exp` and `iat` with a small clock tolerance, and
 * the `nonce` this sign-in sent.
 */
import {
  createRemoteJWKSet,
  customFetch,
  errors,
  type JWTPayload,
  jwtVerify,
} from "jose";
import { HttpError } from "../http_error/mod.ts";
import { OAuthError } from "./_errors.ts";
import { badGateway, PROVIDER_TIMEOUT_MS } from "./_fetch.ts";
import { tokensEqual } from "./_transactions.ts";

/** What an ID token is checked against. */
export interface IdTokenCheck {
  /** The issuer; `{tenantid}` in it is the token's `tid`. */
  issuer: string;
  clientId: string;
  nonce: string;
  algorithms: string[];
  clockToleranceSeconds: number;
}

type KeySet = ReturnType<typeof createRemoteJWKSet>;

/**
 * One key set per `jwks_uri`, cached by `jose` (refetched on an unknown
 * `kid`); `fetcher` is guarded (no redirects, 1 MiB, one deadline).
 */
export function keySets(
  fetcher: typeof fetch,
  timeoutMs: number = PROVIDER_TIMEOUT_MS,
): (uri: string) => KeySet {
  const sets = new Map<string, KeySet>();
  return (uri) => {
    let set = sets.get(uri);
    if (set === undefined) {
      set = createRemoteJWKSet(new URL(uri), {
        timeoutDuration: timeoutMs,
        [customFetch]: fetcher,
      });
      sets.set(uri, set);
    }
    return set;
  };
}

function refused(message: string, cause?: unknown): OAuthError {
  return new OAuthError("id_token", `ID token refused: ${message}`, { cause });
}

/** The verified claims of `token`, or an {@linkcode OAuthError} naming the fault. */
export async function verifyIdToken(
  token: string,
  keys: KeySet,
  check: IdTokenCheck,
): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys, {
      audience: check.clientId,
      algorithms: check.algorithms,
      clockTolerance: check.clockToleranceSeconds,
      requiredClaims: ["iss", "sub", "aud", "exp", "iat"],
    }));
  } catch (error) {
    throw mapJoseError(error);
  }
  // jose checks `iat` only against maxTokenAge: a token issued in the
  // future (a clock gone wrong, or a token minted to outlive its keys)
  // would pass.
  if (
    typeof payload.iat === "number" &&
    payload.iat > Math.floor(Date.now() / 1000) + check.clockToleranceSeconds
  ) {
    throw refused(
      `it was issued in the future (iat ${payload.iat}, more than ${check.clockToleranceSeconds} s ahead)`,
    );
  }
  if (typeof payload.sub !== "string" || payload.sub === "") {
    throw refused("its sub is not a string");
  }
  const issuer = check.issuer.includes("{tenantid}")
    ? check.issuer.replace("{tenantid}", String(payload.tid))
    : check.issuer;
  if (payload.iss !== issuer) {
    throw refused(`it was issued by "${payload.iss}", not "${issuer}"`);
  }
  if (
    Array.isArray(payload.aud) && payload.aud.length > 1 &&
    payload.azp !== check.clientId
  ) {
    throw refused(`it has several audiences and azp is not this client`);
  }
  if (
    typeof payload.nonce !== "string" ||
    !tokensEqual(payload.nonce, check.nonce)
  ) {
    throw refused("its nonce is not the one this sign-in sent");
  }
  return payload;
}

function mapJoseError(error: unknown): Error {
  // The guarded fetch's own 502 (a redirect, 1 MiB, the deadline).
  if (error instanceof HttpError) return error;
  if (error instanceof errors.JWTExpired) {
    return refused("it has expired", error);
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    return refused(`claim "${error.claim}" ${error.reason}`, error);
  }
  if (
    error instanceof errors.JWSSignatureVerificationFailed ||
    error instanceof errors.JWKSNoMatchingKey ||
    error instanceof errors.JWKSMultipleMatchingKeys
  ) {
    return refused(
      "its signature does not verify with the provider's keys",
      error,
    );
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return refused("it is signed with an algorithm not allowed", error);
  }
  if (error instanceof errors.JWKSTimeout || error instanceof TypeError) {
    return badGateway("could not fetch the provider's keys (jwks_uri)", error);
  }
  // jose's own words for a key set answered with an error status or not
  // as JSON: the provider is at fault, not the token (a 502, not a 400).
  if (
    error instanceof errors.JWKSInvalid ||
    (error instanceof errors.JOSEError &&
      error.code === "ERR_JOSE_GENERIC" &&
      /JSON Web Key Set HTTP response/.test(error.message))
  ) {
    return badGateway(
      `the provider's keys (jwks_uri) could not be read: ${error.message}`,
      error,
    );
  }
  if (error instanceof errors.JOSEError) {
    return refused(`it is malformed (${error.message})`, error);
  }
  return badGateway("could not check the ID token", error);
}
