// Test helper: starts panva's oidc-provider in a process of its own on a
// free 127.0.0.1 port (see _test_oidc_provider_main.ts), with test
// accounts and two clients: a confidential one (client_secret_basic) and
// a public one (PKCE alone). Stopped by its PID.
import { startServerProcess } from "../_tools/server_process.ts";

/** A running provider. */
export interface TestProvider {
  /** `http://127.0.0.1:<port>`, the issuer. */
  issuer: string;
  pid: number;
  stop(): Promise<void>;
}

export const CONFIDENTIAL_CLIENT = {
  clientId: "confidential-app",
  clientSecret: "confidential-app-secret-0123456789abcdef",
};
export const PUBLIC_CLIENT = { clientId: "public-app" };

/** The accounts, by login (the dev login page takes any password). */
export const ACCOUNTS = {
  alice: {
    password: "alice-password",
    email: "alice@example.com",
    email_verified: true,
    name: "Alice Provider",
  },
  mallory: {
    password: "mallory-password",
    email: "admin@example.com",
    email_verified: false,
    name: "Mallory Unverified",
  },
  bob: {
    password: "bob-password",
    email: "bob@example.com",
    email_verified: true,
    name: "Bob Provider",
  },
  // A Kelvin sign (U+212A) for the k: toLowerCase() makes it "kate@...".
  kelvin: {
    password: "kelvin-password",
    email: "\u212Aate@example.com",
    email_verified: true,
    name: "Kelvin Provider",
  },
};

const MAIN = new URL("./_test_oidc_provider_main.ts", import.meta.url)
  .pathname;

/** Starts the provider with `redirectUris` registered for both clients. */
export async function startOidcProvider(
  redirectUris: string[],
): Promise<TestProvider> {
  const config = {
    accounts: ACCOUNTS,
    clients: [
      {
        client_id: CONFIDENTIAL_CLIENT.clientId,
        client_secret: CONFIDENTIAL_CLIENT.clientSecret,
        redirect_uris: redirectUris,
        token_endpoint_auth_method: "client_secret_basic",
      },
      {
        client_id: PUBLIC_CLIENT.clientId,
        redirect_uris: redirectUris,
        token_endpoint_auth_method: "none",
      },
    ],
  };
  const server = await startServerProcess(MAIN, [JSON.stringify(config)], {
    flags: ["--allow-net=127.0.0.1", "--allow-env", "--allow-read"],
    stderr: "null",
  });
  return { issuer: server.origin, pid: server.pid, stop: server.stop };
}
