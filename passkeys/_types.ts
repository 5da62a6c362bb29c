// The JSON forms of WebAuthn's options and responses (WebAuthn Level 3,
// `PublicKeyCredential.toJSON()` and `parseCreationOptionsFromJSON()`),
// our own declarations so the public API documents every field.

/** A credential named in `excludeCredentials` or `allowCredentials`. */
export interface PublicKeyCredentialDescriptorJSON {
  /** The credential id, base64url. */
  id: string;
  /** `"public-key"`. */
  type: string;
  /** How the browser can reach the authenticator. */
  transports?: string[];
}

/** The options for `navigator.credentials.create()`, as JSON. */
export interface PublicKeyCredentialCreationOptionsJSON {
  /** The site: its id (domain) and name. */
  rp: { id?: string; name: string };
  /** The account: its handle (base64url), name and display name. */
  user: { id: string; name: string; displayName: string };
  /** The challenge, base64url. */
  challenge: string;
  /** The signature algorithms accepted, by COSE id. */
  pubKeyCredParams: { alg: number; type: "public-key" }[];
  /** Milliseconds the browser waits. */
  timeout?: number;
  /** Credentials the authenticator must not already hold. */
  excludeCredentials?: PublicKeyCredentialDescriptorJSON[];
  /** Resident keys and user verification asked for. */
  authenticatorSelection?: {
    authenticatorAttachment?: "platform" | "cross-platform";
    requireResidentKey?: boolean;
    residentKey?: "required" | "preferred" | "discouraged";
    userVerification?: "required" | "preferred" | "discouraged";
  };
  /** Hints for the browser's dialog. */
  hints?: ("hybrid" | "security-key" | "client-device")[];
  /** Attestation asked for (`"none"` here). */
  attestation?: "direct" | "enterprise" | "indirect" | "none";
  /** Extensions asked for. */
  extensions?: object;
}

/** The options for `navigator.credentials.get()`, as JSON. */
export interface PublicKeyCredentialRequestOptionsJSON {
  /** The challenge, base64url. */
  challenge: string;
  /** Milliseconds the browser waits. */
  timeout?: number;
  /** The site's id (domain). */
  rpId?: string;
  /** The passkeys that may answer; absent: any discoverable one. */
  allowCredentials?: PublicKeyCredentialDescriptorJSON[];
  /** Whether the user must be verified (PIN, biometrics). */
  userVerification?: "required" | "preferred" | "discouraged";
  /** Hints for the browser's dialog. */
  hints?: ("hybrid" | "security-key" | "client-device")[];
  /** Extensions asked for. */
  extensions?: object;
}

/** The JSON of a new credential (`credential.toJSON()` after `create()`). */
export interface RegistrationResponseJSON {
  /** The credential id, base64url. */
  id: string;
  /** The same id. */
  rawId: string;
  /** The authenticator's answer. */
  response: {
    /** base64url */
    clientDataJSON: string;
    /** base64url */
    attestationObject: string;
    /** How the browser can reach the authenticator. */
    transports?: string[];
  };
  /** Where the authenticator is. */
  authenticatorAttachment?: "platform" | "cross-platform";
  /** Extension outputs. */
  clientExtensionResults: Record<string, unknown>;
  /** Always `"public-key"`. */
  type: "public-key";
}

/** The JSON of an assertion (`credential.toJSON()` after `get()`). */
export interface AuthenticationResponseJSON {
  /** The credential id, base64url. */
  id: string;
  /** The same id. */
  rawId: string;
  /** The authenticator's answer. */
  response: {
    /** base64url */
    clientDataJSON: string;
    /** base64url */
    authenticatorData: string;
    /** base64url */
    signature: string;
    /** The account's handle, base64url (discoverable credentials). */
    userHandle?: string;
  };
  /** Where the authenticator is. */
  authenticatorAttachment?: "platform" | "cross-platform";
  /** Extension outputs. */
  clientExtensionResults: Record<string, unknown>;
  /** Always `"public-key"`. */
  type: "public-key";
}
