// Test helper: a software WebAuthn authenticator and client (ES256,
// attestation "none"), so the portable tests make real registration and
// sign-in responses on every runtime without a browser. The browser tests
// use Chromium's virtual authenticator instead.
import { isoCBOR } from "@simplewebauthn/server/helpers";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "@fetchkit/toolkit/passkeys";
import { fromBase64Url, toBase64Url } from "../runtime/base64.ts";

interface Credential {
  id: Uint8Array<ArrayBuffer>;
  privateKey: CryptoKey;
  publicJwk: JsonWebKey;
  userHandle: string;
  rpId: string;
  counter: number;
}

/** How the authenticator behaves. */
export interface AuthenticatorOptions {
  /** Sets UV. Default true. */
  userVerified?: boolean;
  /** Sets BE (and BS when `backedUp`). Default false. */
  backupEligible?: boolean;
  backedUp?: boolean;
  /** Keeps a sign counter (else always 0, as synced passkeys). Default true. */
  counts?: boolean;
}

const encoder = new TextEncoder();

async function sha256(bytes: Uint8Array<ArrayBuffer>) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

function concat(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

function uint32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

/** ECDSA's raw r||s as the DER SEQUENCE WebAuthn carries. */
function toDer(raw: Uint8Array): Uint8Array {
  const integer = (bytes: Uint8Array) => {
    let i = 0;
    while (i < bytes.length - 1 && bytes[i] === 0) i++;
    let body = bytes.slice(i);
    if (body[0] & 0x80) body = concat(new Uint8Array([0]), body);
    return concat(new Uint8Array([0x02, body.length]), body);
  };
  const seq = concat(integer(raw.slice(0, 32)), integer(raw.slice(32)));
  return concat(new Uint8Array([0x30, seq.length]), seq);
}

function clientData(type: string, challenge: string, origin: string) {
  return encoder.encode(
    JSON.stringify({ type, challenge, origin, crossOrigin: false }),
  );
}

/** A software authenticator holding its credentials in memory. */
export class SoftAuthenticator {
  readonly credentials: Credential[] = [];
  options: AuthenticatorOptions;

  constructor(options: AuthenticatorOptions = {}) {
    this.options = options;
  }

  #flags(attested: boolean): number {
    const o = this.options;
    return 0x01 | (o.userVerified === false ? 0 : 0x04) |
      (o.backupEligible ? 0x08 : 0) | (o.backedUp ? 0x10 : 0) |
      (attested ? 0x40 : 0);
  }

  /** `navigator.credentials.create()` at `origin`. */
  async create(
    options: PublicKeyCredentialCreationOptionsJSON,
    origin: string,
    tamper: {
      /** Attest this existing credential again (its id in authData). */
      again?: number;
      /** The `id`/`rawId` the client reports, whatever authData says. */
      reportId?: string;
    } = {},
  ): Promise<RegistrationResponseJSON> {
    const rpId = options.rp.id ?? new URL(origin).hostname;
    const existing = tamper.again === undefined
      ? undefined
      : this.credentials[tamper.again];
    const keys = existing ? undefined : await crypto.subtle.generateKey(
      { name: "ECDSA", namedCurve: "P-256" },
      true,
      ["sign", "verify"],
    ) as CryptoKeyPair;
    const jwk = existing?.publicJwk ??
      await crypto.subtle.exportKey("jwk", keys!.publicKey);
    const id = existing?.id ?? crypto.getRandomValues(new Uint8Array(16));
    if (!existing) {
      this.credentials.push({
        id,
        privateKey: keys!.privateKey,
        publicJwk: jwk,
        userHandle: options.user.id,
        rpId,
        counter: 0,
      });
    }
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, fromBase64Url(jwk.x!)],
        [-3, fromBase64Url(jwk.y!)],
      ]),
    );
    const authData = concat(
      await sha256(encoder.encode(rpId)),
      new Uint8Array([this.#flags(true)]),
      uint32(0),
      new Uint8Array(16), // AAGUID: none
      new Uint8Array([0, id.length]),
      id,
      cose,
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as never,
    );
    return {
      id: tamper.reportId ?? toBase64Url(id),
      rawId: tamper.reportId ?? toBase64Url(id),
      type: "public-key",
      response: {
        clientDataJSON: toBase64Url(
          clientData("webauthn.create", options.challenge, origin),
        ),
        attestationObject: toBase64Url(attestationObject),
        transports: ["internal"],
      },
      clientExtensionResults: {},
    };
  }

  /** `navigator.credentials.get()` at `origin`, with the first usable credential. */
  async get(
    options: PublicKeyCredentialRequestOptionsJSON,
    origin: string,
  ): Promise<AuthenticationResponseJSON> {
    const allowed = options.allowCredentials?.map((c) => c.id);
    const credential = this.credentials.find((c) =>
      c.rpId === options.rpId &&
      (!allowed || allowed.includes(toBase64Url(c.id)))
    );
    if (!credential) throw new Error("no credential for this request");
    if (this.options.counts !== false) credential.counter++;
    const authData = concat(
      await sha256(encoder.encode(credential.rpId)),
      new Uint8Array([this.#flags(false)]),
      uint32(this.options.counts === false ? 0 : credential.counter),
    );
    const data = clientData("webauthn.get", options.challenge, origin);
    const signed = concat(authData, await sha256(data));
    const raw = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        credential.privateKey,
        signed,
      ),
    );
    return {
      id: toBase64Url(credential.id),
      rawId: toBase64Url(credential.id),
      type: "public-key",
      response: {
        clientDataJSON: toBase64Url(data),
        authenticatorData: toBase64Url(authData),
        signature: toBase64Url(toDer(raw)),
        userHandle: credential.userHandle,
      },
      clientExtensionResults: {},
    };
  }
}
