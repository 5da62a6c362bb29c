// Test helper process: panva's oidc-provider (a certified OpenID Provider)
// on 127.0.0.1, a free port, with its own login and consent pages
// (devInteractions). Prints "listening <port>" once it serves.
//
// Argument: JSON { clients, accounts }, see _test_oidc_provider.ts.
import http from "node:http";
import Provider from "oidc-provider";

interface Account {
  password: string;
  email: string;
  email_verified: boolean;
  name: string;
}

const config = JSON.parse(Deno.args[0]) as {
  clients: Record<string, unknown>[];
  accounts: Record<string, Account>;
};

const server = http.createServer();
server.listen(0, "127.0.0.1", () => {
  const { port } = server.address() as { port: number };
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: config.clients,
    pkce: { required: () => true },
    cookies: { keys: ["test-cookie-key-0123456789abcdef"] },
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name"],
    },
    features: { devInteractions: { enabled: true } },
    findAccount(_context: unknown, id: string) {
      const account = config.accounts[id];
      if (account === undefined) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          email_verified: account.email_verified,
          name: account.name,
        }),
      };
    },
  });
  server.on("request", provider.callback());
  console.log(`listening ${port}`);
});
