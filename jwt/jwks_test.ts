// A JWKS server on 127.0.0.1 (node:http, so the file runs on Deno, Node
// and Bun).
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { jwt, JwtPayload, signJwt } from "@fetchkit/toolkit/jwt-middleware";

interface KeyPair {
  kid: string;
  privateKey: CryptoKey;
  jwk: JsonWebKey & { kid: string; alg: string; use: string };
}

async function keyPair(kid: string): Promise<KeyPair> {
  const { publicKey, privateKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  const jwk = await crypto.subtle.exportKey("jwk", publicKey);
  return { kid, privateKey, jwk: { ...jwk, kid, alg: "ES256", use: "sig" } };
}

/** A JWKS server that counts its fetches; `keys` may change over time. */
async function jwksServer(keys: KeyPair[]) {
  const state = { fetches: 0, keys, down: false };
  const server = createServer((request, response) => {
    if (request.url !== "/.well-known/jwks.json") {
      response.writeHead(404).end("Not Found");
      return;
    }
    state.fetches++;
    if (state.down) {
      response.writeHead(500).end("down");
      return;
    }
    response.writeHead(200, { "Content-Type": "application/json" })
      .end(JSON.stringify({ keys: state.keys.map((key) => key.jwk) }));
  });
  await new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve())
  );
  const { port } = server.address() as AddressInfo;
  return {
    state,
    url: `http://127.0.0.1:${port}/.well-known/jwks.json`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function app(url: string, cooldownMs: number) {
  const router = createRouter();
  router.get(
    "/",
    jwt({ jwks: url, algorithms: ["ES256"], jwksCooldownMs: cooldownMs }),
    ({ get }) => new Response(get(JwtPayload)?.sub),
  );
  return (token: string) =>
    router.fetch(
      new Request("http://x/", {
        headers: { Authorization: `Bearer ${token}` },
      }),
    );
}

function sign(key: KeyPair, sub: string, kid = key.kid): Promise<string> {
  return signJwt({ sub }, key.privateKey, {
    algorithm: "ES256",
    keyId: kid,
    expiresIn: 60,
  });
}

Deno.test("jwks: fetched once, cached, refreshed on an unknown kid at most once per interval", async () => {
  const first = await keyPair("2026-10");
  const second = await keyPair("2026-11");
  const jwks = await jwksServer([first]);
  try {
    const send = app(jwks.url, 300);
    // First use fetches the set; later tokens with a known kid do not.
    const responses = await Promise.all(
      Array.from(
        { length: 10 },
        async () => await send(await sign(first, "ada")),
      ),
    );
    for (const response of responses) {
      assert.equal(await response.text(), "ada");
    }
    assert.equal(jwks.state.fetches, 1);
    assert.equal(await (await send(await sign(first, "bob"))).text(), "bob");
    assert.equal(jwks.state.fetches, 1);

    // A rotation: the provider publishes a new key. Right after the first
    // fetch (within the cooldown) an unknown kid does not refetch...
    jwks.state.keys = [first, second];
    const early = await send(await sign(second, "cy"));
    assert.equal(early.status, 401);
    assert.match(
      early.headers.get("WWW-Authenticate") ?? "",
      /No known key matches the token's kid/,
    );
    assert.equal(jwks.state.fetches, 1);

    // ...once the cooldown passed, the first unknown kid refetches, once,
    // even for many concurrent requests.
    await new Promise((resolve) => setTimeout(resolve, 350));
    const rotated = await Promise.all(
      Array.from(
        { length: 20 },
        async () => await send(await sign(second, "cy")),
      ),
    );
    for (const response of rotated) assert.equal(await response.text(), "cy");
    assert.equal(jwks.state.fetches, 2);

    // Made-up kids cannot make the server fetch on every request.
    const attacker = await keyPair("evil");
    for (let i = 0; i < 20; i++) {
      const response = await send(
        await sign(attacker, "admin", `made-up-${i}`),
      );
      assert.equal(response.status, 401);
      await response.body?.cancel();
    }
    assert.ok(jwks.state.fetches <= 3, `fetches: ${jwks.state.fetches}`);
  } finally {
    await jwks.close();
  }
});

Deno.test("jwks: a kid pointing at a known key, signed by another key, fails the signature", async () => {
  const genuine = await keyPair("k1");
  const attacker = await keyPair("k1");
  const jwks = await jwksServer([genuine]);
  try {
    const send = app(jwks.url, 30_000);
    const response = await send(await sign(attacker, "admin", "k1"));
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get("WWW-Authenticate") ?? "",
      /The token's signature does not verify/,
    );
  } finally {
    await jwks.close();
  }
});

Deno.test("jwks: jku, x5u and jwk headers in a token are never followed", async () => {
  const genuine = await keyPair("k1");
  const attacker = await keyPair("evil");
  const jwks = await jwksServer([genuine]);
  const attackerSet = await jwksServer([attacker]);
  try {
    const send = app(jwks.url, 30_000);
    const header = {
      alg: "ES256",
      kid: "evil",
      jku: attackerSet.url,
      x5u: attackerSet.url,
      jwk: attacker.jwk,
    };
    const { SignJWT } = await import("jose");
    const token = await new SignJWT({ sub: "admin" }).setProtectedHeader(header)
      .sign(attacker.privateKey);
    const response = await send(token);
    assert.equal(response.status, 401);
    await response.body?.cancel();
    assert.equal(attackerSet.state.fetches, 0);
  } finally {
    await jwks.close();
    await attackerSet.close();
  }
});

Deno.test("jwks: a key set that cannot be fetched answers 503 with Retry-After", async () => {
  const key = await keyPair("k1");
  const jwks = await jwksServer([key]);
  jwks.state.down = true;
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    const send = app(jwks.url, 0);
    const response = await send(await sign(key, "ada"));
    assert.equal(response.status, 503);
    assert.equal(response.headers.get("Retry-After"), "30");
    assert.equal(await response.text(), "Service Unavailable");
    jwks.state.down = false;
    assert.equal(await (await send(await sign(key, "ada"))).text(), "ada");
    // A closed port: the same.
    await jwks.close();
    const closed = app(jwks.url, 0);
    const refused = await closed(await sign(key, "ada"));
    assert.equal(refused.status, 503);
    await refused.body?.cancel();
    assert.ok(errors.length >= 2);
  } finally {
    console.error = original;
  }
});
