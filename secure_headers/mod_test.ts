import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  CspNonce,
  secureHeaders,
  type SecureHeadersOptions,
} from "@fetchkit/toolkit/secure-headers-middleware";

function app(options?: SecureHeadersOptions) {
  const router = createRouter({ middleware: [secureHeaders(options)] });
  router.get("/", ({ get }) =>
    new Response(String(get(CspNonce)), {
      // HTML: the kind of response a nonce goes on.
      headers: {
        "X-Powered-By": "PHP/4.0",
        "Content-Type": "text/html; charset=utf-8",
      },
    }));
  router.get(
    "/framed",
    () =>
      new Response("embed me", {
        headers: { "X-Frame-Options": "SAMEORIGIN" },
      }),
  );
  router.get("/away", () => Response.redirect("https://example.com/", 302));
  return async (url = "http://localhost/") => {
    const response = await router.fetch(new Request(url));
    return { headers: response.headers, body: await response.text(), response };
  };
}

Deno.test("secureHeaders: the defaults, and no X-Powered-By", async () => {
  const { headers } = await app()();
  // Everything but Content-Type, which runtimes add differently.
  const sent = Object.fromEntries(
    [...headers].filter(([name]) => name !== "content-type"),
  );
  assert.deepEqual(sent, {
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "origin-agent-cluster": "?1",
    "referrer-policy": "strict-origin-when-cross-origin",
    "x-content-type-options": "nosniff",
    "x-dns-prefetch-control": "off",
    "x-frame-options": "DENY",
    "x-permitted-cross-domain-policies": "none",
    "x-xss-protection": "0",
  });
});

Deno.test("secureHeaders: HSTS on https requests only", async () => {
  const request = app();
  assert.equal(
    (await request("https://example.com/")).headers.get(
      "Strict-Transport-Security",
    ),
    "max-age=31536000; includeSubDomains",
  );
  assert.equal(
    (await request("http://example.com/")).headers.get(
      "Strict-Transport-Security",
    ),
    null,
  );
  const off = app({ strictTransportSecurity: false });
  assert.equal(
    (await off("https://example.com/")).headers.get(
      "Strict-Transport-Security",
    ),
    null,
  );
});

Deno.test("secureHeaders: each default changes or turns off; the handler's own wins", async () => {
  const request = app({
    xFrameOptions: "SAMEORIGIN",
    referrerPolicy: false,
    crossOriginEmbedderPolicy: "require-corp",
    permissionsPolicy: "camera=()",
    removePoweredBy: false,
  });
  const { headers } = await request();
  assert.equal(headers.get("X-Frame-Options"), "SAMEORIGIN");
  assert.equal(headers.get("Referrer-Policy"), null);
  assert.equal(headers.get("Cross-Origin-Embedder-Policy"), "require-corp");
  assert.equal(headers.get("Permissions-Policy"), "camera=()");
  assert.equal(headers.get("X-Powered-By"), "PHP/4.0");
  const framed = await app()("http://localhost/framed");
  assert.equal(framed.headers.get("X-Frame-Options"), "SAMEORIGIN");
  const replaced = await app({ overwrite: true })("http://localhost/framed");
  assert.equal(replaced.headers.get("X-Frame-Options"), "DENY");
  // Immutable headers are copied.
  const away = await app()("http://localhost/away");
  assert.equal(away.response.status, 302);
  assert.equal(away.headers.get("X-Content-Type-Options"), "nosniff");
});

Deno.test("secureHeaders: CSP with a fresh nonce per request, readable by the handler", async () => {
  const request = app({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", "'nonce'"],
      "style-src": ["'nonce'"],
      upgradeInsecureRequests: [],
    },
    contentSecurityPolicyReportOnly: { scriptSrc: ["'nonce'"] },
  });
  const first = await request();
  const nonce = first.body;
  assert.match(nonce, /^[A-Za-z0-9+/]{22}==$/);
  assert.equal(
    first.headers.get("Content-Security-Policy"),
    `default-src 'self'; script-src 'self' 'nonce-${nonce}'; style-src 'nonce-${nonce}'; upgrade-insecure-requests`,
  );
  assert.equal(
    first.headers.get("Content-Security-Policy-Report-Only"),
    `script-src 'nonce-${nonce}'`,
  );
  const nonces = new Set([nonce]);
  for (let i = 0; i < 200; i++) nonces.add((await request()).body);
  assert.equal(nonces.size, 201);
  // Without 'nonce', no nonce is made.
  const fixed = app({ contentSecurityPolicy: { defaultSrc: ["'self'"] } });
  const plain = await fixed();
  assert.equal(plain.body, "undefined");
  assert.equal(
    plain.headers.get("Content-Security-Policy"),
    "default-src 'self'",
  );
});

Deno.test("secureHeaders: malformed options are refused, naming what is wrong", () => {
  const cases: [SecureHeadersOptions, RegExp][] = [
    [
      { contentSecurityPolicy: { scriptSrc: ["'self'; img-src *"] } },
      /scriptSrc has a source that is not one/,
    ],
    [{ contentSecurityPolicy: { scriptSrc: ["a b"] } }, /no spaces/],
    [
      {
        contentSecurityPolicy: {
          scriptSrc: "'self'" as unknown as string[],
        },
      },
      /must be a list of sources/,
    ],
    [
      { contentSecurityPolicy: { "script src": [] } },
      /directive name that is not one: "script src"/,
    ],
    [
      { xFrameOptions: "DENY\r\nSet-Cookie: a=b" },
      /xFrameOptions must be a header value or false/,
    ],
    [
      { strictTransportSecurity: 5 as unknown as string },
      /strictTransportSecurity must be/,
    ],
  ];
  for (const [options, message] of cases) {
    assert.throws(() => secureHeaders(options), { name: "TypeError", message });
  }
});

Deno.test("secureHeaders: the handler's own headers win whatever their case; overwrite still sets the nonce policy", async () => {
  const router = (overwrite: boolean) => {
    const routes = createRouter({
      middleware: [secureHeaders({
        overwrite,
        contentSecurityPolicy: { scriptSrc: ["'nonce'"] },
      })],
    });
    routes.get("/", () =>
      new Response("<p>hi</p>", {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "content-security-policy": "default-src 'none'",
          "x-content-type-options": "custom",
        },
      }));
    return routes;
  };
  const kept = await router(false).fetch(new Request("http://localhost/"));
  assert.equal(
    kept.headers.get("Content-Security-Policy"),
    "default-src 'none'",
  );
  assert.equal(kept.headers.get("X-Content-Type-Options"), "custom");
  assert.equal(kept.headers.get("X-Frame-Options"), "DENY");
  const replaced = await router(true).fetch(new Request("http://localhost/"));
  assert.match(
    replaced.headers.get("Content-Security-Policy")!,
    /^script-src 'nonce-[A-Za-z0-9+/=_-]+'$/,
  );
  assert.equal(replaced.headers.get("X-Content-Type-Options"), "nosniff");
});
