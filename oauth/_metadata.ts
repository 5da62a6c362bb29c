/**
 * The provider's endpoints: given outright (plain OAuth 2), or read from
 * `issuer`'s `/.well-known/openid-configuration` (OpenID Connect
 * Discovery), once, and again after a failure or a day.
 */
import { badGateway, jsonObject } from "./_fetch.ts";
import { providerUrl } from "./_urls.ts";

export { badGateway, PROVIDER_TIMEOUT_MS } from "./_fetch.ts";

/** The endpoints and capabilities this client uses. */
export interface Metadata {
  /** The issuer as the provider names itself; may hold `{tenantid}`. */
  issuer?: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint?: string;
  jwks_uri?: string;
  /** RFC 9207: the provider sends `iss` with every authorization answer. */
  authorization_response_iss_parameter_supported?: boolean;
  id_token_signing_alg_values_supported?: string[];
  token_endpoint_auth_methods_supported?: string[];
}

/** How long discovered metadata is kept: a day. */
const KEEP_MS = 24 * 60 * 60 * 1000;

function checkEndpoints(metadata: Metadata, where: string): void {
  for (
    const name of [
      "authorization_endpoint",
      "token_endpoint",
      "userinfo_endpoint",
      "jwks_uri",
    ] as const
  ) {
    const value = metadata[name];
    if (value === undefined) continue;
    if (typeof value !== "string") {
      throw new TypeError(`OAuth: ${name} in ${where} is not a string`);
    }
    providerUrl(value, `${name} in ${where}`);
  }
}

/** Checks explicit endpoints when the client is created. */
export function explicitMetadata(metadata: Metadata): Metadata {
  checkEndpoints(metadata, "the options");
  return metadata;
}

/**
 * A loader of `issuer`'s discovery document. The document's `issuer`
 * must be the configured one, or, with `multiTenant`, the configured
 * one's pattern with `{tenantid}` in it (Microsoft's `common`).
 */
export function discovery(
  issuer: string,
  options: { fetch: typeof fetch; multiTenant?: boolean },
): () => Promise<Metadata> {
  const url = new URL(
    issuer.replace(/\/$/, "") + "/.well-known/openid-configuration",
  );
  let cached: { at: number; metadata: Promise<Metadata> } | undefined;

  async function load(): Promise<Metadata> {
    // options.fetch is guarded: no redirects, 1 MiB, one deadline.
    const response = await options.fetch(url, {
      headers: { Accept: "application/json" },
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw badGateway(`${url} answered ${response.status}`);
    }
    const metadata = await jsonObject(
      response,
      String(url),
    ) as unknown as Metadata;
    const named = metadata.issuer;
    const matches = named === issuer ||
      (options.multiTenant === true && typeof named === "string" &&
        named.includes("{tenantid}"));
    if (!matches) {
      throw badGateway(
        `${url} names issuer "${named}", not the configured "${issuer}"`,
      );
    }
    if (
      typeof metadata.authorization_endpoint !== "string" ||
      typeof metadata.token_endpoint !== "string"
    ) {
      throw badGateway(`${url} lacks an authorization or token endpoint`);
    }
    try {
      checkEndpoints(metadata, String(url));
    } catch (error) {
      throw badGateway((error as Error).message, error);
    }
    return metadata;
  }

  return () => {
    const now = Date.now();
    if (cached === undefined || now - cached.at > KEEP_MS) {
      const metadata = load();
      const entry = { at: now, metadata };
      cached = entry;
      // A failure is not kept: the next sign-in tries again.
      metadata.catch(() => {
        if (cached === entry) cached = undefined;
      });
    }
    return cached.metadata;
  };
}
