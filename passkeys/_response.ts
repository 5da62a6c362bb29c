// Shape checks of the JSON a browser posts after a WebAuthn ceremony, so a
// malformed body gets a 400 naming the field instead of an error deep in
// the verifier.
import type {
  AuthenticationResponseJSON,
  RegistrationResponseJSON,
} from "./_types.ts";
import { HttpError } from "../http_error/mod.ts";

/**
 * The longest base64url field accepted: attestation objects with a
 * certificate chain run to a few KiB; 64 KiB is far past any real one.
 */
export const MAX_FIELD_LENGTH = 65536;
/** A credential id is at most 1023 bytes (WebAuthn §5.8.3): 1364 characters. */
export const MAX_ID_LENGTH = 1364;

// Unpadded, or padded to a multiple of 4 with one or two `=`.
const BASE64URL = /^[A-Za-z0-9_-]*$/;
const PADDED = /^[A-Za-z0-9_-]+={1,2}$/;

function refuse(what: string, message: string): never {
  throw new HttpError(400, `Passkey ${what}: ${message}`);
}

function object(value: unknown, what: string, name: string) {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    refuse(what, `${name} must be an object`);
  }
  return value as Record<string, unknown>;
}

function base64url(
  value: unknown,
  what: string,
  name: string,
  max = MAX_FIELD_LENGTH,
): string {
  if (typeof value !== "string" || value === "") {
    refuse(what, `${name} must be a non-empty base64url string`);
  }
  if (value.length > max) {
    refuse(what, `${name} is ${value.length} characters, over ${max}`);
  }
  if (BASE64URL.test(value)) return value;
  // Padding is accepted, as @simplewebauthn/server takes it, and dropped:
  // a padded credential id then finds the stored, unpadded one.
  if (!PADDED.test(value) || value.length % 4 !== 0) {
    refuse(what, `${name} is not base64url`);
  }
  return value.replace(/=+$/, "");
}

function common(body: unknown, what: string) {
  const credential = object(body, what, "the response");
  const id = base64url(credential.id, what, "id", MAX_ID_LENGTH);
  const rawId = base64url(credential.rawId, what, "rawId", MAX_ID_LENGTH);
  if (id !== rawId) refuse(what, "id and rawId differ");
  if (credential.type !== "public-key") {
    refuse(what, 'type must be "public-key"');
  }
  const response = object(credential.response, what, "response");
  const clientDataJSON = base64url(
    response.clientDataJSON,
    what,
    "response.clientDataJSON",
  );
  const results = object(
    credential.clientExtensionResults ?? {},
    what,
    "clientExtensionResults",
  );
  return { credential, response, id, clientDataJSON, results };
}

/** `body` as a registration response, or a 400 naming the bad field. */
export function registrationResponse(body: unknown): RegistrationResponseJSON {
  const what = "registration";
  const { credential, response, id, clientDataJSON, results } = common(
    body,
    what,
  );
  const attestationObject = base64url(
    response.attestationObject,
    what,
    "response.attestationObject",
  );
  const transports = response.transports ?? [];
  if (
    !Array.isArray(transports) || transports.length > 10 ||
    transports.some((t) => typeof t !== "string" || t.length > 32)
  ) {
    refuse(what, "response.transports must be a short list of names");
  }
  return {
    id,
    rawId: id,
    type: "public-key",
    response: {
      clientDataJSON,
      attestationObject,
      transports: transports as string[],
    },
    clientExtensionResults: results,
    authenticatorAttachment:
      credential.authenticatorAttachment === "platform" ||
        credential.authenticatorAttachment === "cross-platform"
        ? credential.authenticatorAttachment
        : undefined,
  };
}

/** `body` as an authentication response, or a 400 naming the bad field. */
export function authenticationResponse(
  body: unknown,
): AuthenticationResponseJSON {
  const what = "sign-in";
  const { response, id, clientDataJSON, results } = common(body, what);
  const authenticatorData = base64url(
    response.authenticatorData,
    what,
    "response.authenticatorData",
  );
  const signature = base64url(response.signature, what, "response.signature");
  const userHandle = response.userHandle;
  const handle =
    userHandle !== undefined && userHandle !== null && userHandle !== ""
      ? base64url(userHandle, what, "response.userHandle", 128)
      : undefined;
  return {
    id,
    rawId: id,
    type: "public-key",
    response: {
      clientDataJSON,
      authenticatorData,
      signature,
      userHandle: handle,
    },
    clientExtensionResults: results,
  };
}
