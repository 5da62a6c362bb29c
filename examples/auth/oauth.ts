/**
 * "Sign in with <provider>": which providers are configured, from the
 * environment, and which provider identity belongs to which user.
 *
 * | variables                                               | button                   |
 * | ------------------------------------------------------- | ------------------------ |
 * | `GOOGLE_CLIENT_ID`, `GOOGLE_CLIENT_SECRET`              | Sign in with Google      |
 * | `MICROSOFT_CLIENT_ID`, `MICROSOFT_CLIENT_SECRET`, `MICROSOFT_TENANT` (default `common`) | Sign in with Microsoft |
 * | `GITHUB_CLIENT_ID`, `GITHUB_CLIENT_SECRET`              | Sign in with GitHub      |
 * | `OIDC_ISSUER`, `OIDC_CLIENT_ID`, `OIDC_CLIENT_SECRET` (optional: a public client), `OIDC_NAME` (default `OpenID`) | Sign in with `OIDC_NAME` |
 * | `PUBLIC_URL` (default `http://<HOSTNAME>:<PORT>`)       | the origin of the callback URLs |
 *
 * None set: no buttons. A provider's callback URL, to register with it,
 * is `PUBLIC_URL/auth/oauth/<id>/callback` (`google`, `microsoft`,
 * `github`, `oidc`). A client id without its secret (or the reverse) stops
 * the server with a message; so does a provider host the process may not
 * reach (`deno task dev` allows Google's, Microsoft's and GitHub's hosts
 * and 127.0.0.1; a company issuer needs its host added to `--allow-net`).
 *
 * Linking: a provider identity (provider and `sub`) is linked to one
 * user, under `["oauth_identities", provider, sub]` in KV. The first
 * sign-in with an identity joins the existing account with the same email
 * only when the provider says the email is verified (`email_verified:
 * true`); with no account for that email, a new one is made from the
 * claims (name and email). An unverified or missing email never opens an
 * existing account and never makes a new one (which would let someone
 * claim an address that is not theirs before its owner arrives).
 *
 * @module
 */
import {
  github,
  google,
  microsoft,
  type OAuthClientOptions,
  oidc,
} from "@fetchkit/toolkit/oauth";
import { ConfigError } from "./config.ts";

/** The providers the app knows, by the id in their URLs. */
export type ProviderId = "google" | "microsoft" | "github" | "oidc";

/** A configured provider: its button's name and its client's options. */
export interface OAuthProvider {
  id: ProviderId;
  name: string;
  options: Omit<OAuthClientOptions, "session" | "redirectUri">;
}

/** Every variable this file reads (the `auth` permission set in deno.json lists them). */
export const OAUTH_VARIABLES = [
  "PUBLIC_URL",
  "GOOGLE_CLIENT_ID",
  "GOOGLE_CLIENT_SECRET",
  "MICROSOFT_CLIENT_ID",
  "MICROSOFT_CLIENT_SECRET",
  "MICROSOFT_TENANT",
  "GITHUB_CLIENT_ID",
  "GITHUB_CLIENT_SECRET",
  "OIDC_ISSUER",
  "OIDC_CLIENT_ID",
  "OIDC_CLIENT_SECRET",
  "OIDC_NAME",
] as const;

type Env = (name: string) => string | undefined;

function pair(env: Env, prefix: string): [string, string] | undefined {
  const id = env(`${prefix}_CLIENT_ID`);
  const secret = env(`${prefix}_CLIENT_SECRET`);
  if (!id && !secret) return undefined;
  if (!id || !secret) {
    throw new ConfigError(
      `Set both ${prefix}_CLIENT_ID and ${prefix}_CLIENT_SECRET, or neither`,
    );
  }
  return [id, secret];
}

/** The providers configured in `env`, in button order. */
export function loadOAuthProviders(env: Env): OAuthProvider[] {
  const providers: OAuthProvider[] = [];
  const add = (id: ProviderId, options: OAuthProvider["options"]) =>
    providers.push({ id, name: options.name ?? id, options });
  const googleKeys = pair(env, "GOOGLE");
  if (googleKeys) {
    add("google", {
      ...google(),
      clientId: googleKeys[0],
      clientSecret: googleKeys[1],
    });
  }
  const microsoftKeys = pair(env, "MICROSOFT");
  if (microsoftKeys) {
    add("microsoft", {
      ...microsoft({ tenant: env("MICROSOFT_TENANT") || undefined }),
      clientId: microsoftKeys[0],
      clientSecret: microsoftKeys[1],
    });
  }
  const githubKeys = pair(env, "GITHUB");
  if (githubKeys) {
    add("github", {
      ...github(),
      clientId: githubKeys[0],
      clientSecret: githubKeys[1],
    });
  }
  const issuer = env("OIDC_ISSUER");
  const oidcId = env("OIDC_CLIENT_ID");
  if (Boolean(issuer) !== Boolean(oidcId)) {
    throw new ConfigError(
      "Set both OIDC_ISSUER and OIDC_CLIENT_ID, or neither",
    );
  }
  if (issuer && oidcId) {
    checkIssuer(issuer);
    add("oidc", {
      ...oidc(issuer, env("OIDC_NAME") || "OpenID"),
      clientId: oidcId,
      clientSecret: env("OIDC_CLIENT_SECRET") || undefined,
    });
  }
  return providers;
}

/** `OIDC_ISSUER` must be https, or http on loopback (a local provider). */
function checkIssuer(issuer: string): void {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new ConfigError(`OIDC_ISSUER must be a URL, not "${issuer}"`);
  }
  const loopback = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(
    url.hostname,
  );
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) {
    throw new ConfigError(
      `OIDC_ISSUER must be https (plain http only on 127.0.0.1 or localhost), not "${issuer}"`,
    );
  }
}

/**
 * Stops the start when the process may not reach a provider's hosts
 * (Deno's `--allow-net`), naming the flag to give, rather than failing
 * at the first sign-in.
 */
export function checkNetAccess(providers: OAuthProvider[]): void {
  for (const provider of providers) {
    for (const url of hostsOf(provider)) {
      const { host } = new URL(url);
      const { state } = Deno.permissions.querySync({ name: "net", host });
      if (state !== "granted") {
        throw new ConfigError(
          `${provider.name} sign-in needs to reach ${host}: add it to --allow-net ` +
            `(deno run --allow-net=127.0.0.1,${host} ...)`,
        );
      }
    }
  }
}

/** The origin callback URLs are built on: `PUBLIC_URL` or where the app listens. */
export function publicUrlOf(
  env: Env,
  listen: { hostname: string; port: number },
): string {
  const given = env("PUBLIC_URL");
  if (given) {
    let url: URL;
    try {
      url = new URL(given);
    } catch {
      throw new ConfigError(`PUBLIC_URL must be a URL, not "${given}"`);
    }
    if (url.protocol !== "https:" && url.protocol !== "http:") {
      throw new ConfigError(`PUBLIC_URL must be http or https, not "${given}"`);
    }
    return url.origin;
  }
  const host = listen.hostname === "0.0.0.0" ? "localhost" : listen.hostname;
  return `http://${host.includes(":") ? `[${host}]` : host}:${listen.port}`;
}

/** The URLs the provider's client will fetch (for the permission check). */
export function hostsOf(provider: OAuthProvider): string[] {
  const { options } = provider;
  const urls = [
    options.issuer,
    options.authorizationEndpoint,
    options.tokenEndpoint,
  ].filter((url): url is string => url !== undefined);
  if (provider.id === "google") {
    urls.push(
      "https://oauth2.googleapis.com",
      "https://www.googleapis.com",
      "https://openidconnect.googleapis.com",
    );
  }
  // Entra's userinfo endpoint, read when the ID token has no email.
  if (provider.id === "microsoft") urls.push("https://graph.microsoft.com");
  if (provider.id === "github") urls.push("https://api.github.com");
  return urls;
}

/** Which user a provider identity belongs to. */
export interface IdentityStore {
  /** The user id linked to `sub` at `provider`, or `null`. */
  find(provider: ProviderId, sub: string): Promise<number | null>;
  /** Links `sub` at `provider` to `userId`; `false` when already linked. */
  link(provider: ProviderId, sub: string, userId: number): Promise<boolean>;
  /** The identities linked to `userId` (the confirm page offers their providers). */
  listByUser(
    userId: number,
  ): Promise<{ provider: ProviderId; sub: string }[]>;
  /** Removes every identity linked to `userId` (account deletion); how many. */
  unlinkUser(userId: number): Promise<number>;
}

/**
 * Identities on the app's KV database: `["oauth_identities", provider, sub]`
 * holds the user id, and `["oauth_identities_by_user", userId, provider, sub]`
 * indexes them by user, written in the same atomic operation, so listing a
 * user's identities reads theirs only. A database from before the index
 * gets it built on first use (one pass over the identities).
 */
export function createIdentityStore(kv: Deno.Kv): IdentityStore {
  const key = (provider: string, sub: string) => [
    "oauth_identities",
    provider,
    sub,
  ];
  const byUser = (userId: number, provider: string, sub: string) => [
    "oauth_identities_by_user",
    userId,
    provider,
    sub,
  ];
  const indexed = ["oauth_identities_indexed"];
  let ready: Promise<void> | undefined;

  async function buildIndex(): Promise<void> {
    if ((await kv.get(indexed)).versionstamp !== null) return;
    for await (
      const entry of kv.list<number>({ prefix: ["oauth_identities"] })
    ) {
      const [, provider, sub] = entry.key as [string, string, string];
      await kv.set(byUser(entry.value, provider, sub), true);
    }
    await kv.set(indexed, true);
  }
  function index(): Promise<void> {
    return ready ??= buildIndex().catch((error) => {
      ready = undefined;
      throw error;
    });
  }

  /** The identities linked to `userId`, read from the index. */
  async function* linkedTo(
    userId: number,
  ): AsyncGenerator<{ provider: ProviderId; sub: string; index: Deno.KvKey }> {
    await index();
    for await (
      const entry of kv.list({ prefix: ["oauth_identities_by_user", userId] })
    ) {
      const [, , provider, sub] = entry.key as [
        string,
        number,
        ProviderId,
        string,
      ];
      yield { provider, sub, index: entry.key };
    }
  }

  return {
    async find(provider, sub) {
      return (await kv.get<number>(key(provider, sub))).value;
    },
    async link(provider, sub, userId) {
      await index();
      const result = await kv.atomic()
        .check({ key: key(provider, sub), versionstamp: null })
        .set(key(provider, sub), userId)
        .set(byUser(userId, provider, sub), true)
        .commit();
      return result.ok;
    },
    async listByUser(userId) {
      const found: { provider: ProviderId; sub: string }[] = [];
      for await (const { provider, sub } of linkedTo(userId)) {
        found.push({ provider, sub });
      }
      return found;
    },
    async unlinkUser(userId) {
      let removed = 0;
      for await (const { provider, sub, index } of linkedTo(userId)) {
        await kv.atomic().delete(key(provider, sub)).delete(index).commit();
        removed++;
      }
      return removed;
    },
  };
}
