import { HttpError } from "../http_error/mod.ts";

/**
 * What failed in a sign-in, as {@linkcode OAuthError.reason} says it:
 *
 * - `state`: no sign-in with that `state` was started in this session, or
 *   it was used already, or it expired.
 * - `provider`: the provider answered with an error (`access_denied`...).
 * - `iss`: the `iss` of the answer is not the provider's (RFC 9207).
 * - `code`: the answer carried no code, or the provider refused to
 *   exchange it (`invalid_grant`: used already, expired, or the PKCE
 *   verifier does not match).
 * - `id_token`: the ID token is missing, badly signed, expired, for
 *   another client or issuer, or its `nonce` is not this sign-in's.
 * - `user`: the user could not be read from the provider's API (it
 *   refused the token, or answered no user); its being down is a `502`.
 * - `auth_time`: a sign-in started with `maxAge` came back with an ID
 *   token whose `auth_time` is missing, older than `maxAge` allows, or in
 *   the future (the provider did not ask the user to sign in again).
 */
export type OAuthErrorReason =
  | "state"
  | "provider"
  | "iss"
  | "code"
  | "id_token"
  | "user"
  | "auth_time";

/**
 * A refused sign-in: an {@linkcode HttpError} with status 400 whose
 * message names what failed; the router answers it as such.
 *
 * @example
 * ```ts
 * import { OAuthError } from "@fetchkit/toolkit/oauth";
 *
 * const error = new OAuthError("state", "Sign-in state does not match");
 * console.log(error.status, error.reason); // 400 "state"
 * ```
 */
export class OAuthError extends HttpError {
  /** What failed. */
  readonly reason: OAuthErrorReason;
  /** The provider's `error` code, when it sent one (`access_denied`). */
  readonly providerError: string | undefined;

  /**
   * Creates the error (status 400).
   *
   * @param reason What failed.
   * @param message A sentence naming it, shown to the client.
   * @param options The provider's error code and the cause.
   */
  constructor(
    reason: OAuthErrorReason,
    message: string,
    options: { providerError?: string; cause?: unknown } = {},
  ) {
    super(400, message, { cause: options.cause });
    this.name = "OAuthError";
    this.reason = reason;
    this.providerError = options.providerError;
  }
}
