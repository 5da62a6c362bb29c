/**
 * The apps of the JWT benchmarks: `jwt()` on our router and Hono's `jwt`
 * on a Hono app, HS256 and ES256, verifying the same tokens, each answering
 * one route behind the middleware. Checked to answer 200 on import.
 */
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { jwt, JwtPayload, signJwt } from "@fetchkit/toolkit/jwt-middleware";
import { Hono } from "hono";
import { jwt as honoJwt } from "hono/jwt";

const SECRET = "a-bench-secret-of-at-least-32-bytes!";
const { publicKey, privateKey } = await crypto.subtle.generateKey(
  { name: "ECDSA", namedCurve: "P-256" },
  true,
  ["sign", "verify"],
);
const claims = { sub: "ada", iss: "bench" };
const hsToken = await signJwt(claims, SECRET, {
  algorithm: "HS256",
  expiresIn: "1h",
});
const esToken = await signJwt(claims, privateKey, {
  algorithm: "ES256",
  expiresIn: "1h",
});

function ours(options: Parameters<typeof jwt>[0]) {
  const router = createRouter();
  router.get(
    "/me",
    jwt(options),
    ({ get }) => new Response(get(JwtPayload)?.sub),
  );
  return router;
}

function hono(secret: string | CryptoKey, alg: "HS256" | "ES256") {
  const app = new Hono();
  app.get(
    "/me",
    honoJwt({ secret, alg }),
    (c) => c.text((c.get("jwtPayload") as { sub: string }).sub),
  );
  return app;
}

const request = (token: string) =>
  new Request("http://localhost/me", {
    headers: { Authorization: `Bearer ${token}` },
  });
export const hsRequest = request(hsToken);
export const esRequest = request(esToken);

export const apps = {
  oursHs: ours({ secret: SECRET, algorithms: ["HS256"] }),
  honoHs: hono(SECRET, "HS256"),
  oursEs: ours({ publicKey, algorithms: ["ES256"] }),
  honoEs: hono(publicKey, "ES256"),
};

// Answers must be right, or the numbers mean nothing.
for (const [name, app] of Object.entries(apps)) {
  const response = await app.fetch(name.endsWith("Hs") ? hsRequest : esRequest);
  if (response.status !== 200 || await response.text() !== "ada") {
    throw new Error(`${name} does not answer 200 ada`);
  }
}
