/**
 * Who may write: the notes API's write routes (create, update, delete)
 * take a bearer JWT signed with HS256 by `API_JWT_SECRET`, issued by and
 * for `notes-api`; reads stay open. `token.ts` prints a token for local
 * use.
 *
 * @module
 */
import type { Middleware } from "@fetchkit/toolkit/fetch-router";
import { jwt, signJwt } from "@fetchkit/toolkit/jwt-middleware";

/** The `iss` and `aud` of the API's tokens. */
export const API_ISSUER = "notes-api";

/**
 * The secret development falls back to without `API_JWT_SECRET`: public,
 * so any token it signs is worthless outside a developer's machine.
 */
export const DEVELOPMENT_SECRET =
  "development-only-notes-api-secret-0123456789";

/**
 * The signing secret from `API_JWT_SECRET`; without it, the development
 * secret and a warning, or an error when `DENO_ENV=production`.
 */
export function apiSecret(
  env: (name: string) => string | undefined,
  warn: (line: string) => void = console.error,
): string {
  const secret = env("API_JWT_SECRET");
  if (secret !== undefined && secret !== "") return secret;
  if (env("DENO_ENV") === "production") {
    throw new Error(
      "API_JWT_SECRET is required when DENO_ENV=production (32+ random characters)",
    );
  }
  warn(
    "Warning: API_JWT_SECRET is not set; using the public development secret",
  );
  return DEVELOPMENT_SECRET;
}

/** The middleware in front of every write route. */
export function requireToken(secret: string): Middleware {
  return jwt({
    secret,
    algorithms: ["HS256"],
    issuer: API_ISSUER,
    audience: API_ISSUER,
    clockToleranceSec: 5,
  });
}

/** A token for `subject`, valid for `expiresIn` (`"1h"`, `"7d"`, seconds). */
export function issueToken(
  secret: string,
  subject: string,
  expiresIn: string | number = "1h",
): Promise<string> {
  return signJwt({ sub: subject, iss: API_ISSUER, aud: API_ISSUER }, secret, {
    algorithm: "HS256",
    expiresIn,
  });
}
