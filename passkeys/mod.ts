/**
 * Passkeys (WebAuthn): registration and sign-in with a key the user's
 * device keeps, phishing-proof and without a password. The ceremonies'
 * cryptography (CBOR, COSE keys, signatures, attestation formats) is
 * `@simplewebauthn/server`'s, a maintained library that runs on Deno,
 * Node, Bun and Workers; this module adds what an app around it needs:
 *
 * - **The challenge lives in the session** (the context key the app gave
 *   `session()`): one per session, replaced by the next options call,
 *   and expiring after `challengeTtlMs` (default 5 minutes, also the
 *   browser's `timeout`).
 * - **Single use, whatever the handler does**: before a response is
 *   checked, its challenge is taken out of the session and recorded as
 *   used in `usedChallenges` until it expires. `session()` saves nothing
 *   when the handler throws (as a handler that lets the `400` propagate
 *   does), so the session alone would keep the challenge; the record
 *   refuses a second answer to it all the same, and a replayed cookie
 *   too. The default record is this process's memory (at most 100,000
 *   challenges at once, then `503`); give a shared one when several
 *   processes serve the site (see {@linkcode UsedChallengeStore}).
 * - **Discoverable credentials**: registration asks for a resident key
 *   (`residentKey: "required"` by default), so `authenticationOptions()`
 *   without a `userId` lets the browser offer every passkey of the site
 *   (username-less sign-in); the account comes from the credential and
 *   its user handle, which must agree.
 * - **Per-user lists**: `registrationOptions()` takes the user's passkeys
 *   as `excludeCredentials` (the browser refuses to make a second one on
 *   the same authenticator, and so does `verifyRegistration()`, by the
 *   credential id in the authenticator data, not the one the client
 *   reports);
 *   `authenticationOptions({ userId, credentials })` names them in
 *   `allowCredentials` and the answer must come from one of them.
 * - **Checked and returned for storage**: the sign counter (a counter that
 *   does not grow, when the authenticator keeps one, means a cloned
 *   authenticator: refused), the backup flags (backup eligibility is fixed
 *   for a credential's life: a change is refused; the backed-up state is
 *   returned for storage), user verification (required by default).
 * - **Errors**: a refused response is an `HttpError` 400 whose message
 *   names what failed ("Passkey sign-in: the challenge has expired"); the
 *   router answers it as text, or JSON for clients that ask for JSON.
 * - **Encoding**: the response's binary fields are base64url, with or
 *   without `=` padding (as `@simplewebauthn/server` takes them; some
 *   Android clients pad); the padding is dropped, so a padded credential
 *   id finds the stored one.
 *
 * This module keeps no store: the app stores each {@linkcode Passkey}
 * (`verifyRegistration()` returns it) and finds one by credential id for
 * `verifyAuthentication()` (its `lookup`), then stores the updated
 * counter and flags it returns. User ids are opaque strings of at most
 * 64 bytes (the WebAuthn user handle); never an email, which the
 * authenticator would keep.
 *
 * @example
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 * import { session, type Session } from "@fetchkit/toolkit/session-middleware";
 * import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
 * import { createPasskeys, type Passkey } from "@fetchkit/toolkit/passkeys";
 *
 * const Sessions = createContextKey<Session>();
 * const passkeys = createPasskeys({
 *   rpId: "localhost",
 *   rpName: "Example",
 *   origins: ["http://localhost:8000"],
 *   session: Sessions,
 * });
 * const stored = new Map<string, Passkey>();
 * const router = createRouter({
 *   middleware: [
 *     session(
 *       Sessions,
 *       createMemorySessionStorage({ cookie: { secrets: ["a-secret-of-at-least-32-characters!"] } }),
 *     ),
 *   ],
 * });
 * router.post("/passkeys/options", (context) =>
 *   Response.json(passkeys.authenticationOptions(context)));
 * router.post("/passkeys/verify", async (context) => {
 *   const { passkey, userId } = await passkeys.verifyAuthentication(
 *     context,
 *     await context.request.json(),
 *     (id) => stored.get(id),
 *   );
 *   stored.set(passkey.id, passkey); // the new counter and backup state
 *   return Response.json({ userId });
 * });
 * const response = await router.fetch(
 *   new Request("http://localhost/passkeys/options", { method: "POST" }),
 * );
 * (await response.json()).rpId; // "localhost"
 * ```
 *
 * @module
 */
import {
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialDescriptorJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "./_types.ts";
import type { AnyContextKey, RequestContext } from "../router/mod.ts";
import { HttpError } from "../http_error/mod.ts";
import { fromBase64Url, toBase64Url } from "../runtime/base64.ts";
import { authenticationResponse, registrationResponse } from "./_response.ts";
import { createMemoryUsedChallenges } from "./_used_challenges.ts";

export type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialDescriptorJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
};

/** A stored passkey: what the app keeps per credential. */
export interface Passkey {
  /** The credential id, base64url; unique across the site. */
  id: string;
  /** The account it signs in (the WebAuthn user handle, as a string). */
  userId: string;
  /** The credential's public key (a COSE key), base64url. */
  publicKey: string;
  /**
   * The authenticator's sign counter at the last use; `0` for
   * authenticators that keep none (most synced passkeys).
   */
  counter: number;
  /** How the browser can reach the authenticator (`internal`, `usb`...). */
  transports?: string[];
  /** Backup eligible (BE): a multi-device (syncable) credential. Fixed. */
  backupEligible: boolean;
  /** Backed up (BS) at the last use. */
  backedUp: boolean;
}

/** What {@linkcode Passkeys.verifyRegistration} returns: a new passkey. */
export interface RegisteredPasskey extends Passkey {
  /** The authenticator model's AAGUID (zeros when it does not say). */
  aaguid: string;
  /** Whether the user was verified (PIN, biometrics) while registering. */
  userVerified: boolean;
}

/** What {@linkcode Passkeys.verifyAuthentication} returns. */
export interface PasskeyAuthentication {
  /** The account signed in. */
  userId: string;
  /** The passkey with its new counter and backup state: store it. */
  passkey: Passkey;
  /** Whether the user was verified (PIN, biometrics). */
  userVerified: boolean;
}

/** The account a passkey is made for. */
export interface PasskeyUser {
  /** Opaque account id, at most 64 bytes of UTF-8 (not an email). */
  id: string;
  /** The name the browser shows in its account chooser (an email...). */
  name: string;
  /** A friendlier name; default `name`. */
  displayName?: string;
  /** The user's passkeys: the browser will not make a second one on them. */
  credentials?: readonly Pick<Passkey, "id" | "transports">[];
}

/** Options of {@linkcode Passkeys.authenticationOptions}. */
export interface AuthenticationOptionsInput {
  /**
   * The account signing in, when known (a username was typed): the
   * answer must then come from one of its passkeys. Without it, any
   * discoverable passkey of this site may answer.
   */
  userId?: string;
  /**
   * That account's passkeys, for `allowCredentials`: the browser offers
   * only these, and the answer must come from one. Without them (a page
   * that should not tell whether an account has passkeys) any passkey may
   * answer, and `verifyAuthentication()` refuses one of another account.
   */
  credentials?: readonly Pick<Passkey, "id" | "transports">[];
}

/** Finds a stored passkey by credential id. */
export type PasskeyLookup = (
  credentialId: string,
) => Passkey | null | undefined | Promise<Passkey | null | undefined>;

/**
 * Where used challenges are recorded until they expire, so that each
 * serves one response even when the handler throws. Share one between
 * the processes that serve a site.
 *
 * @example On Deno KV (an atomic insert that fails when the key exists)
 * ```ts
 * import type { UsedChallengeStore } from "@fetchkit/toolkit/passkeys";
 *
 * function kvUsedChallenges(kv: Deno.Kv): UsedChallengeStore {
 *   return {
 *     async use(challenge, expiresAt) {
 *       const key = ["passkey_challenges", challenge];
 *       const result = await kv.atomic()
 *         .check({ key, versionstamp: null })
 *         .set(key, true, { expireIn: Math.max(1000, expiresAt - Date.now()) })
 *         .commit();
 *       return result.ok;
 *     },
 *   };
 * }
 * // On Redis: (await client.set(`passkey:${challenge}`, "1", { NX: true, PXAT: expiresAt })) === "OK"
 * ```
 */
export interface UsedChallengeStore {
  /**
   * Records `challenge` as used until `expiresAt` (epoch ms); `true` the
   * first time, `false` when it was used already.
   */
  use(challenge: string, expiresAt: number): boolean | Promise<boolean>;
}

/** Options of {@linkcode createPasskeys}. */
export interface PasskeysOptions {
  /** The relying party id: the site's domain (`example.com`, `localhost`). */
  rpId: string;
  /** The site's name, which the browser shows. */
  rpName: string;
  /**
   * Every origin the ceremony may run on (`https://example.com`); a
   * response from any other is refused.
   */
  origins: readonly string[];
  /** The context key the app gave `session()`: challenges live there. */
  session: AnyContextKey;
  /** How long a challenge stays good, in ms. Default 300000 (5 minutes). */
  challengeTtlMs?: number;
  /**
   * Whether the user must be verified (PIN, biometrics) besides present.
   * Default `"required"`: a passkey then stands for two factors.
   */
  userVerification?: "required" | "preferred";
  /** Resident (discoverable) keys. Default `"required"`. */
  residentKey?: "required" | "preferred" | "discouraged";
  /**
   * Where used challenges are recorded (see the module docs). Default:
   * this process's memory; share one between processes.
   */
  usedChallenges?: UsedChallengeStore;
}

/** Registration and sign-in, made by {@linkcode createPasskeys}. */
export interface Passkeys {
  /**
   * The options for `navigator.credentials.create()` (as JSON, for
   * `PublicKeyCredential.parseCreationOptionsFromJSON`), with a new
   * challenge kept in the session.
   */
  registrationOptions(
    context: RequestContext,
    user: PasskeyUser,
  ): Promise<PublicKeyCredentialCreationOptionsJSON>;
  /**
   * Checks the browser's answer to `registrationOptions()` (the JSON of
   * the `PublicKeyCredential`); the challenge is used up either way.
   *
   * @throws {HttpError} 400 naming what failed.
   */
  verifyRegistration(
    context: RequestContext,
    response: unknown,
  ): Promise<RegisteredPasskey>;
  /**
   * The options for `navigator.credentials.get()`, with a new challenge
   * kept in the session.
   */
  authenticationOptions(
    context: RequestContext,
    input?: AuthenticationOptionsInput,
  ): PublicKeyCredentialRequestOptionsJSON;
  /**
   * Checks the browser's answer to `authenticationOptions()`; `lookup`
   * finds the stored passkey by credential id. The challenge is used up
   * either way.
   *
   * @throws {HttpError} 400 naming what failed.
   */
  verifyAuthentication(
    context: RequestContext,
    response: unknown,
    lookup: PasskeyLookup,
  ): Promise<PasskeyAuthentication>;
}

/** Where the challenge lives in the session. */
export const PASSKEY_CHALLENGE_KEY = "passkeys:challenge";

interface Challenge {
  /** Which ceremony. */
  kind: "registration" | "authentication";
  challenge: string;
  /** Expiry, epoch ms. */
  expires: number;
  userId?: string;
  /** Credential ids the new one must not be (registration), or must be. */
  ids?: string[];
}

interface SessionLike {
  get(name: string): unknown;
  set(name: string, value: unknown): void;
  unset(name: string): void;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The WebAuthn user handle: at most 64 bytes. */
const MAX_USER_ID_BYTES = 64;

function userHandleOf(userId: string): Uint8Array<ArrayBuffer> {
  const bytes = encoder.encode(userId);
  if (bytes.length === 0 || bytes.length > MAX_USER_ID_BYTES) {
    throw new TypeError(
      `A passkey user id is 1 to ${MAX_USER_ID_BYTES} bytes of UTF-8, not ${bytes.length}`,
    );
  }
  return bytes;
}

function challengeBytes(): Uint8Array<ArrayBuffer> {
  return crypto.getRandomValues(new Uint8Array(32));
}

/**
 * Runs one of the library's verifiers: its refusal, thrown (with its own
 * message, never a stack) or `verified: false`, is a 400.
 */
async function verified<T extends { verified: boolean }>(
  what: string,
  run: () => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await run();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new HttpError(400, `Passkey ${what}: ${reason}`, { cause: error });
  }
  if (!result.verified) {
    throw new HttpError(400, `Passkey ${what}: not verified`);
  }
  return result;
}

/**
 * Creates passkey registration and sign-in over the app's sessions (see
 * the module docs for what each step checks).
 *
 * @example
 * ```ts
 * import { createContextKey } from "@fetchkit/toolkit/fetch-router";
 * import type { Session } from "@fetchkit/toolkit/session-middleware";
 * import { createPasskeys } from "@fetchkit/toolkit/passkeys";
 *
 * const Sessions = createContextKey<Session>();
 * const passkeys = createPasskeys({
 *   rpId: "example.com",
 *   rpName: "Example",
 *   origins: ["https://example.com"],
 *   session: Sessions,
 * });
 * typeof passkeys.verifyAuthentication; // "function"
 * ```
 *
 * @param options The site (`rpId`, `rpName`, `origins`) and the session key.
 * @returns The four steps of the two ceremonies.
 * @throws {TypeError} When an origin is not an `https:` origin, or
 *   `http:` on `localhost`, or `origins` is empty.
 */
export function createPasskeys(options: PasskeysOptions): Passkeys {
  const { rpId, rpName, session: sessionKey } = options;
  const origins = [...options.origins];
  const ttl = options.challengeTtlMs ?? 300_000;
  const userVerification = options.userVerification ?? "required";
  const requireUserVerification = userVerification === "required";
  const residentKey = options.residentKey ?? "required";
  const usedChallenges = options.usedChallenges ??
    createMemoryUsedChallenges();
  if (origins.length === 0) {
    throw new TypeError("createPasskeys() needs at least one origin");
  }
  for (const origin of origins) {
    const url = URL.canParse(origin) ? new URL(origin) : null;
    const local = url?.hostname === "localhost" ||
      url?.hostname.endsWith(".localhost");
    if (
      !url || url.origin !== origin ||
      !(url.protocol === "https:" || (url.protocol === "http:" && local))
    ) {
      throw new TypeError(
        `Passkey origin "${origin}" must be an https: origin (http: only on localhost), without path`,
      );
    }
  }
  if (!Number.isFinite(ttl) || ttl < 1000) {
    throw new TypeError(`challengeTtlMs must be at least 1000, not ${ttl}`);
  }

  function sessionOf(context: RequestContext): SessionLike {
    const session = context.get(sessionKey) as SessionLike | undefined;
    if (typeof session?.get !== "function") {
      throw new TypeError(
        "Passkeys need a session: put session() with the same key before this route",
      );
    }
    return session;
  }

  function keep(context: RequestContext, challenge: Challenge): void {
    sessionOf(context).set(PASSKEY_CHALLENGE_KEY, challenge);
  }

  /**
   * Takes the challenge out of the session and records it as used before
   * the response is checked: it serves one response, even when the
   * handler throws and the session is not saved.
   */
  async function take(
    context: RequestContext,
    kind: Challenge["kind"],
    what: string,
  ): Promise<Challenge> {
    const session = sessionOf(context);
    const stored = session.get(PASSKEY_CHALLENGE_KEY) as Challenge | undefined;
    if (stored !== undefined) session.unset(PASSKEY_CHALLENGE_KEY);
    if (stored?.kind !== kind || typeof stored.challenge !== "string") {
      throw new HttpError(
        400,
        `Passkey ${what}: no ${kind} challenge in this session (used already, or never asked for)`,
      );
    }
    if (!(Date.now() < stored.expires)) {
      throw new HttpError(400, `Passkey ${what}: the challenge has expired`);
    }
    if (!await usedChallenges.use(stored.challenge, stored.expires)) {
      throw new HttpError(
        400,
        `Passkey ${what}: this challenge was used already; ask for new options`,
      );
    }
    return stored;
  }

  return {
    async registrationOptions(context, user) {
      const handle = userHandleOf(user.id);
      const exclude = (user.credentials ?? []).map((c) => ({
        id: c.id,
        transports: c.transports ? [...c.transports] : undefined,
      }));
      const json: PublicKeyCredentialCreationOptionsJSON =
        await generateRegistrationOptions({
          rpName,
          rpID: rpId,
          userName: user.name,
          userDisplayName: user.displayName ?? user.name,
          userID: handle,
          challenge: challengeBytes(),
          timeout: ttl,
          attestationType: "none",
          excludeCredentials: exclude,
          authenticatorSelection: {
            residentKey,
            requireResidentKey: residentKey === "required",
            userVerification,
          },
        });
      keep(context, {
        kind: "registration",
        challenge: json.challenge,
        expires: Date.now() + ttl,
        userId: user.id,
        ids: exclude.map((c) => c.id),
      });
      return json;
    },

    async verifyRegistration(context, body) {
      const what = "registration";
      const state = await take(context, "registration", what);
      const response = registrationResponse(body);
      const held = (id: string) => state.ids?.includes(id) === true;
      if (held(response.id)) {
        throw new HttpError(
          400,
          `Passkey ${what}: this authenticator already holds a passkey for this account`,
        );
      }
      const result = await verified(what, () =>
        verifyRegistrationResponse({
          response,
          expectedChallenge: state.challenge,
          expectedOrigin: origins,
          expectedRPID: rpId,
          requireUserVerification,
        }));
      const info = result.registrationInfo!;
      // The id the app stores is the one in the authenticator data; the
      // client's `id` is only what it says.
      if (held(info.credential.id)) {
        throw new HttpError(
          400,
          `Passkey ${what}: this authenticator already holds a passkey for this account`,
        );
      }
      if (info.credential.id !== response.id) {
        throw new HttpError(
          400,
          `Passkey ${what}: id is not the credential id in the authenticator data`,
        );
      }
      return {
        id: info.credential.id,
        userId: state.userId!,
        publicKey: toBase64Url(info.credential.publicKey),
        counter: info.credential.counter,
        transports: response.response.transports,
        backupEligible: info.credentialDeviceType === "multiDevice",
        backedUp: info.credentialBackedUp,
        aaguid: info.aaguid,
        userVerified: info.userVerified,
      };
    },

    authenticationOptions(context, input = {}) {
      if (input.userId !== undefined) userHandleOf(input.userId);
      const allow = input.userId === undefined
        ? []
        : (input.credentials ?? []).map((c) => ({
          type: "public-key",
          id: c.id,
          transports: c.transports ? [...c.transports] : undefined,
        }));
      const challenge = toBase64Url(challengeBytes());
      // What generateAuthenticationOptions() builds, made synchronously
      // (it is async only to encode the challenge).
      const json: PublicKeyCredentialRequestOptionsJSON = {
        challenge,
        allowCredentials: allow.length > 0 ? allow : undefined,
        timeout: ttl,
        userVerification,
        rpId,
      };
      keep(context, {
        kind: "authentication",
        challenge,
        expires: Date.now() + ttl,
        userId: input.userId,
        ids: input.userId === undefined || input.credentials === undefined
          ? undefined
          : allow.map((c) => c.id),
      });
      return json;
    },

    async verifyAuthentication(context, body, lookup) {
      const what = "sign-in";
      const state = await take(context, "authentication", what);
      const response = authenticationResponse(body);
      if (state.ids !== undefined && !state.ids.includes(response.id)) {
        throw new HttpError(
          400,
          `Passkey ${what}: this passkey is not one of the account's`,
        );
      }
      const passkey = await lookup(response.id);
      if (!passkey) {
        throw new HttpError(400, `Passkey ${what}: unknown passkey`);
      }
      if (state.userId !== undefined && passkey.userId !== state.userId) {
        throw new HttpError(
          400,
          `Passkey ${what}: this passkey belongs to another account`,
        );
      }
      const handle = response.response.userHandle;
      if (handle === undefined && state.userId === undefined) {
        throw new HttpError(
          400,
          `Passkey ${what}: no user handle (the passkey is not discoverable)`,
        );
      }
      if (handle !== undefined && !sameUser(handle, passkey.userId)) {
        throw new HttpError(
          400,
          `Passkey ${what}: the user handle does not match the passkey's account`,
        );
      }
      const result = await verified(what, () =>
        verifyAuthenticationResponse({
          response,
          expectedChallenge: state.challenge,
          expectedOrigin: origins,
          expectedRPID: rpId,
          credential: {
            id: passkey.id,
            publicKey: fromBase64Url(passkey.publicKey),
            counter: passkey.counter,
            transports: passkey.transports,
          },
          requireUserVerification,
        }));
      const info = result.authenticationInfo;
      const eligible = info.credentialDeviceType === "multiDevice";
      if (eligible !== passkey.backupEligible) {
        // BE is fixed when the credential is made (WebAuthn §6.1.3).
        throw new HttpError(
          400,
          `Passkey ${what}: the backup eligibility flag changed since registration`,
        );
      }
      return {
        userId: passkey.userId,
        userVerified: info.userVerified,
        passkey: {
          ...passkey,
          counter: info.newCounter,
          backedUp: info.credentialBackedUp,
        },
      };
    },
  };
}

function sameUser(handle: string, userId: string): boolean {
  try {
    return decoder.decode(fromBase64Url(handle)) === userId;
  } catch {
    return false;
  }
}
