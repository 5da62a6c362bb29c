import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  jwt,
  type JwtOptions,
  JwtPayload,
  signJwt,
} from "@fetchkit/toolkit/jwt-middleware";

const SECRET = "a-test-secret-of-at-least-32-bytes!!";

function b64url(data: string | Uint8Array): string {
  const bytes = typeof data === "string"
    ? new TextEncoder().encode(data)
    : data;
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

function fromB64url(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Signs `header.payload` with HMAC-SHA256 by hand (for forged tokens). */
async function hs256(
  header: object,
  payload: object,
  key: Uint8Array<ArrayBuffer>,
): Promise<string> {
  const input = `${b64url(JSON.stringify(header))}.${
    b64url(JSON.stringify(payload))
  }`;
  const cryptoKey = await crypto.subtle.importKey(
    "raw",
    key,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign(
    "HMAC",
    cryptoKey,
    new TextEncoder().encode(input),
  );
  return `${input}.${b64url(new Uint8Array(signature))}`;
}

function app(options: JwtOptions) {
  const router = createRouter();
  router.get("/", jwt(options), ({ get }) => Response.json(get(JwtPayload)));
  return async (token?: string, init: RequestInit & { url?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (token !== undefined) headers.set("Authorization", `Bearer ${token}`);
    return await router.fetch(
      new Request(init.url ?? "http://x/", { headers }),
    );
  };
}

/** Asserts a 401 with the RFC 6750 challenge and this description. */
async function refused(
  response: Response,
  description: string | RegExp,
): Promise<void> {
  assert.equal(response.status, 401);
  const header = response.headers.get("WWW-Authenticate") ?? "";
  const match =
    /^Bearer realm="api", error="invalid_token", error_description="([^"]*)"$/
      .exec(header);
  assert.ok(match, `challenge: ${header}`);
  if (typeof description === "string") assert.equal(match[1], description);
  else assert.match(match[1], description);
  assert.equal(await response.text(), match[1]);
}

/**
 * Asserts a 401 for a request without a token: the challenge has no error
 * code (RFC 6750 3.1), the body says what to send.
 */
async function missing(response: Response, body: string): Promise<void> {
  assert.equal(response.status, 401);
  assert.equal(response.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
  assert.equal(await response.text(), body);
}

const now = () => Math.floor(Date.now() / 1000);

Deno.test("jwt: a valid HS256 token passes, its payload in JwtPayload", async () => {
  const send = app({ secret: SECRET, algorithms: ["HS256"] });
  const token = await signJwt({ sub: "ada", role: "admin" }, SECRET, {
    algorithm: "HS256",
    expiresIn: "5m",
  });
  const response = await send(token);
  assert.equal(response.status, 200);
  const payload = await response.json();
  assert.equal(payload.sub, "ada");
  assert.equal(payload.role, "admin");
  assert.ok(payload.exp > now() + 200 && payload.exp <= now() + 300);
  assert.ok(Math.abs(payload.iat - now()) <= 2);
});

Deno.test("jwt: RFC 7515 A.1 / RFC 7519 3.1 example token verifies with its key", async () => {
  // The JWK of RFC 7515 appendix A.1, and the token of RFC 7519 section 3.1.
  const k =
    "AyM1SysPpbyDfgZld3umj1qzKObwVMkoqQ-EstJQLr_T-1qS0gZH75aKtMN3Yj0iPS4hcgUuTwjAzZr1Z9CAow";
  const token = "eyJ0eXAiOiJKV1QiLA0KICJhbGciOiJIUzI1NiJ9" +
    ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ" +
    ".dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
  const send = app({
    secret: fromB64url(k),
    algorithms: ["HS256"],
    issuer: "joe",
  });
  // exp is 1300819380 (2011-03-22T18:43:00Z): valid a second before, not at it.
  const clock = FakeTimers.install({ now: 1300819379_000, toFake: ["Date"] });
  try {
    const response = await send(token);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      iss: "joe",
      exp: 1300819380,
      "http://example.com/is_root": true,
    });
    clock.setSystemTime(1300819380_000);
    await refused(await send(token), "The token has expired");
  } finally {
    clock.uninstall();
  }
  // One changed signature byte.
  const tampered = token.slice(0, -2) + (token.at(-2) === "X" ? "Y" : "X") +
    token.at(-1);
  await refused(await send(tampered), /expired|signature does not verify/);
});

Deno.test("jwt: a missing token, and a token in the query string, are refused", async () => {
  const send = app({ secret: SECRET, algorithms: ["HS256"] });
  const token = await signJwt({ sub: "ada" }, SECRET, { algorithm: "HS256" });
  await missing(await send(), "No token: send Authorization: Bearer <token>");
  await missing(
    await send(undefined, {
      url: `http://x/?access_token=${token}&token=${token}&jwt=${token}`,
    }),
    "No token: send Authorization: Bearer <token>",
  );
  await refused(
    await send(undefined, {
      headers: { Authorization: `Basic ${btoa("a:b")}` },
    }),
    "The token is malformed",
  );
});

Deno.test("jwt: alg none is refused, in every spelling", async () => {
  const send = app({ secret: SECRET, algorithms: ["HS256"] });
  const payload = b64url(JSON.stringify({ sub: "admin", exp: now() + 60 }));
  for (const alg of ["none", "None", "NONE", "nOnE"]) {
    const header = b64url(JSON.stringify({ alg, typ: "JWT" }));
    for (const token of [`${header}.${payload}.`, `${header}.${payload}`]) {
      const response = await send(token);
      assert.equal(response.status, 401, `${alg}: ${token}`);
    }
  }
  const header = b64url(JSON.stringify({ alg: "none" }));
  await refused(
    await send(`${header}.${payload}.`),
    "The token's algorithm is not allowed",
  );
  // And the option itself cannot ask for it.
  assert.throws(
    // @ts-expect-error: "none" is not an algorithm here
    () => jwt({ secret: SECRET, algorithms: ["none"] }),
    /unknown or unsafe algorithm "none"/,
  );
});

Deno.test("jwt: HS256 signed with the RSA public key is refused (key confusion)", async () => {
  const { publicKey, privateKey } = await crypto.subtle.generateKey(
    {
      name: "RSASSA-PKCS1-v1_5",
      modulusLength: 2048,
      publicExponent: new Uint8Array([1, 0, 1]),
      hash: "SHA-256",
    },
    true,
    ["sign", "verify"],
  );
  const spki = new Uint8Array(await crypto.subtle.exportKey("spki", publicKey));
  const pem = `-----BEGIN PUBLIC KEY-----\n${
    btoa(String.fromCharCode(...spki)).match(/.{1,64}/g)!.join("\n")
  }\n-----END PUBLIC KEY-----\n`;
  const jwk = await crypto.subtle.exportKey("jwk", publicKey);
  const claims = { sub: "admin", exp: now() + 60 };
  const forgedWithPem = await hs256(
    { alg: "HS256", typ: "JWT" },
    claims,
    new TextEncoder().encode(pem),
  );
  const forgedWithDer = await hs256({ alg: "HS256", typ: "JWT" }, claims, spki);
  const genuine = await signJwt(claims, privateKey, { algorithm: "RS256" });

  for (
    const options of [
      { publicKey, algorithms: ["RS256"] },
      { publicKey: jwk, algorithms: ["RS256"] },
      { jwks: { keys: [jwk] }, algorithms: ["RS256"] },
    ] as JwtOptions[]
  ) {
    const send = app(options);
    assert.equal((await send(genuine)).status, 200);
    await refused(
      await send(forgedWithPem),
      "The token's algorithm is not allowed",
    );
    await refused(
      await send(forgedWithDer),
      "The token's algorithm is not allowed",
    );
  }
  // Configurations that would allow it are refused when created.
  assert.throws(
    () => jwt({ publicKey, algorithms: ["RS256", "HS256"] }),
    /a public key must not verify HMAC tokens/,
  );
  assert.throws(
    () => jwt({ secret: pem, algorithms: ["HS256", "RS256"] }),
    /a `secret` verifies HS256, HS384 and HS512 only/,
  );
  assert.throws(
    () => jwt({ publicKey: privateKey, algorithms: ["RS256"] }),
    /must be a public key/,
  );
});

Deno.test("jwt: the algorithms list is enforced between HMAC variants", async () => {
  const send = app({ secret: SECRET + SECRET, algorithms: ["HS384"] });
  const hs256Token = await signJwt({ sub: "a" }, SECRET + SECRET, {
    algorithm: "HS256",
  });
  await refused(await send(hs256Token), "The token's algorithm is not allowed");
  const hs384Token = await signJwt({ sub: "a" }, SECRET + SECRET, {
    algorithm: "HS384",
  });
  assert.equal((await send(hs384Token)).status, 200);
});

Deno.test("jwt: a wrong key or a changed payload fails the signature", async () => {
  const send = app({ secret: SECRET, algorithms: ["HS256"] });
  const other = await signJwt({ sub: "ada" }, SECRET + "x", {
    algorithm: "HS256",
  });
  await refused(await send(other), "The token's signature does not verify");
  const token = await signJwt({ sub: "ada", admin: false }, SECRET, {
    algorithm: "HS256",
  });
  const [header, , signature] = token.split(".");
  const changed = `${header}.${
    b64url(JSON.stringify({ sub: "ada", admin: true }))
  }.${signature}`;
  await refused(await send(changed), "The token's signature does not verify");
});

Deno.test("jwt: exp and nbf edges, with and without clock tolerance", async () => {
  const strict = app({ secret: SECRET, algorithms: ["HS256"] });
  const tolerant = app({
    secret: SECRET,
    algorithms: ["HS256"],
    clockToleranceSec: 30,
  });
  const NOW = 1_800_000_000;
  const clock = FakeTimers.install({ now: NOW * 1000, toFake: ["Date"] });
  try {
    const token = (claims: object) =>
      hs256({ alg: "HS256" }, claims, new TextEncoder().encode(SECRET));
    // exp: the current time must be before it (RFC 7519 4.1.4).
    assert.equal((await strict(await token({ exp: NOW + 1 }))).status, 200);
    await refused(
      await strict(await token({ exp: NOW })),
      "The token has expired",
    );
    await refused(
      await strict(await token({ exp: NOW - 10 })),
      "The token has expired",
    );
    assert.equal((await tolerant(await token({ exp: NOW - 10 }))).status, 200);
    assert.equal((await tolerant(await token({ exp: NOW - 29 }))).status, 200);
    await refused(
      await tolerant(await token({ exp: NOW - 30 })),
      "The token has expired",
    );
    // nbf: the current time must be at or after it (RFC 7519 4.1.5).
    assert.equal((await strict(await token({ nbf: NOW }))).status, 200);
    await refused(
      await strict(await token({ nbf: NOW + 1 })),
      "The token is not valid yet",
    );
    assert.equal((await tolerant(await token({ nbf: NOW + 30 }))).status, 200);
    await refused(
      await tolerant(await token({ nbf: NOW + 31 })),
      "The token is not valid yet",
    );
    // Non-numeric claims are refused, not ignored.
    await refused(
      await strict(await token({ exp: "never" })),
      /exp claim|malformed/,
    );
    await refused(
      await strict(await token({ nbf: "soon" })),
      /nbf claim|not valid yet|malformed/,
    );
  } finally {
    clock.uninstall();
  }
  assert.throws(
    () => jwt({ secret: SECRET, algorithms: ["HS256"], clockToleranceSec: -1 }),
    /clockToleranceSec must be/,
  );
});

Deno.test("jwt: a token issued in the future (iat past the clock tolerance) is refused", async () => {
  const strict = app({ secret: SECRET, algorithms: ["HS256"] });
  const tolerant = app({
    secret: SECRET,
    algorithms: ["HS256"],
    clockToleranceSec: 30,
  });
  const NOW = 1_800_000_000;
  const clock = FakeTimers.install({ now: NOW * 1000, toFake: ["Date"] });
  try {
    const token = (claims: object) =>
      hs256({ alg: "HS256" }, claims, new TextEncoder().encode(SECRET));
    assert.equal((await strict(await token({ iat: NOW }))).status, 200);
    assert.equal((await strict(await token({ iat: NOW - 3600 }))).status, 200);
    for (const ahead of [1, 3600, 10 * 365 * 86400]) {
      await refused(
        await strict(await token({ iat: NOW + ahead })),
        "The token's issue time is not valid",
      );
    }
    assert.equal((await tolerant(await token({ iat: NOW + 30 }))).status, 200);
    await refused(
      await tolerant(await token({ iat: NOW + 31 })),
      "The token's issue time is not valid",
    );
    await refused(
      await strict(await token({ iat: "yesterday" })),
      /iat|issue time|malformed/,
    );
  } finally {
    clock.uninstall();
  }
});

Deno.test("jwt: issuer and audience lists", async () => {
  const send = app({
    secret: SECRET,
    algorithms: ["HS256"],
    issuer: ["https://a.example", "https://b.example"],
    audience: ["orders", "billing"],
  });
  const sign = (claims: Record<string, unknown>) =>
    signJwt(claims, SECRET, { algorithm: "HS256" });
  assert.equal(
    (await send(await sign({ iss: "https://b.example", aud: "orders" })))
      .status,
    200,
  );
  assert.equal(
    (await send(
      await sign({ iss: "https://a.example", aud: ["other", "billing"] }),
    )).status,
    200,
  );
  await refused(
    await send(await sign({ iss: "https://c.example", aud: "orders" })),
    "The token's issuer is not accepted",
  );
  await refused(
    await send(await sign({ aud: "orders" })),
    /issuer|iss claim/,
  );
  await refused(
    await send(await sign({ iss: "https://a.example", aud: "shipping" })),
    "The token's audience is not accepted",
  );
  await refused(
    await send(await sign({ iss: "https://a.example", aud: ["x", "y"] })),
    "The token's audience is not accepted",
  );
  await refused(
    await send(await sign({ iss: "https://a.example" })),
    /audience|aud claim/,
  );
});

Deno.test("jwt: a 1 MB token is refused unread", async () => {
  const send = app({ secret: SECRET, algorithms: ["HS256"] });
  const huge = await signJwt({ pad: "x".repeat(1024 * 1024) }, SECRET, {
    algorithm: "HS256",
  });
  assert.ok(huge.length > 1024 * 1024);
  await refused(await send(huge), "The token is longer than 8192 characters");
  // Also as a cookie.
  const cookieApp = app({
    secret: SECRET,
    algorithms: ["HS256"],
    cookie: "at",
  });
  await refused(
    await cookieApp(undefined, { headers: { Cookie: `at=${huge}` } }),
    "The token is longer than 8192 characters",
  );
});

Deno.test("jwt: malformed tokens are refused with 401, never a 500", async () => {
  const send = app({ secret: SECRET, algorithms: ["HS256"] });
  const header = b64url(JSON.stringify({ alg: "HS256" }));
  for (
    const token of [
      "abc",
      "a.b",
      "a.b.c.d",
      "a.b.c",
      `${header}.${b64url("not json")}.sig`,
      `${b64url("not json")}.${b64url("{}")}.sig`,
      `${header}.${b64url("[1,2]")}.sig`,
      `${b64url(JSON.stringify({ alg: "HS256", crit: ["exp"] }))}.${
        b64url("{}")
      }.sig`,
      `${b64url(JSON.stringify({ alg: "HS256", b64: false, crit: ["b64"] }))}.${
        b64url("{}")
      }.sig`,
      "e30.e30.e30",
    ]
  ) {
    const response = await send(token);
    assert.equal(response.status, 401, token);
    assert.match(
      response.headers.get("WWW-Authenticate") ?? "",
      /error="invalid_token"/,
    );
  }
});

Deno.test("jwt: ES256 with a public CryptoKey or JWK; signJwt with a private JWK", async () => {
  const { publicKey, privateKey } = await crypto.subtle.generateKey(
    { name: "ECDSA", namedCurve: "P-256" },
    true,
    ["sign", "verify"],
  );
  const privateJwk = await crypto.subtle.exportKey("jwk", privateKey);
  const publicJwk = await crypto.subtle.exportKey("jwk", publicKey);
  const fromCryptoKey = await signJwt({ sub: "a" }, privateKey, {
    algorithm: "ES256",
    expiresIn: 60,
  });
  const fromJwk = await signJwt({ sub: "b" }, privateJwk, {
    algorithm: "ES256",
    keyId: "k1",
  });
  for (const key of [publicKey, publicJwk]) {
    const send = app({ publicKey: key, algorithms: ["ES256"] });
    assert.equal((await (await send(fromCryptoKey)).json()).sub, "a");
    assert.equal((await (await send(fromJwk)).json()).sub, "b");
  }
  assert.throws(
    () => jwt({ publicKey: privateJwk, algorithms: ["ES256"] }),
    /must be a public JWK/,
  );
});

Deno.test("jwt: the token from a cookie, not the header, when asked", async () => {
  const send = app({
    secret: SECRET,
    algorithms: ["HS256"],
    cookie: "access_token",
  });
  const token = await signJwt({ sub: "ada" }, SECRET, { algorithm: "HS256" });
  const response = await send(undefined, {
    headers: { Cookie: `theme=dark; access_token=${token}` },
  });
  assert.equal(response.status, 200);
  await missing(await send(token), "No token: send the access_token cookie");
});

Deno.test("jwt: bad options are refused when created", () => {
  // @ts-expect-error: algorithms is required
  assert.throws(() => jwt({ secret: SECRET }), /needs `algorithms`/);
  assert.throws(
    () => jwt({ secret: SECRET, algorithms: [] }),
    /needs `algorithms`/,
  );
  assert.throws(
    () => jwt({ algorithms: ["HS256"] }),
    /exactly one of `secret`/,
  );
  assert.throws(
    () => jwt({ secret: "short", algorithms: ["HS256"] }),
    /at least 32 bytes \(RFC 7518 §3.2\), got 5/,
  );
  assert.throws(
    () => jwt({ secret: SECRET, algorithms: ["HS512"] }),
    /HS512 must be at least 64 bytes/,
  );
});

Deno.test("signJwt refuses keys that do not suit the algorithm", async () => {
  await assert.rejects(
    () => signJwt({}, "short", { algorithm: "HS256" }),
    /at least 32 bytes/,
  );
  await assert.rejects(
    () => signJwt({}, SECRET, { algorithm: "ES256" }),
    /signs with a private CryptoKey or JWK, not a string/,
  );
  await assert.rejects(
    // @ts-expect-error: not an algorithm
    () => signJwt({}, SECRET, { algorithm: "none" }),
    /unknown algorithm "none"/,
  );
});

Deno.test("jwt: a client that prefers JSON gets the description as { error }, untouched by onError", async () => {
  const router = createRouter({
    // An app whose error handler would turn anything into a 500.
    onError: () => new Response("oops", { status: 500 }),
  });
  router.get(
    "/",
    jwt({ secret: SECRET, algorithms: ["HS256"] }),
    () => new Response("ok"),
  );
  const response = await router.fetch(
    new Request("http://x/", { headers: { Accept: "application/json" } }),
  );
  assert.equal(response.status, 401);
  assert.match(
    response.headers.get("Content-Type") ?? "",
    /^application\/json/,
  );
  assert.deepEqual(await response.json(), {
    error: "No token: send Authorization: Bearer <token>",
  });
  assert.equal(response.headers.get("WWW-Authenticate"), 'Bearer realm="api"');
});
