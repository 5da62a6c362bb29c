// Which responses get the nonce: HTML that no shared cache keeps. Portable.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  CspNonce,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";

const POLICY = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'nonce'"],
  styleSrc: ["'self'", "'nonce'"],
  upgradeInsecureRequests: [],
};
const WITHOUT_NONCE =
  "default-src 'self'; script-src 'none'; style-src 'self'; upgrade-insecure-requests";

async function policyOf(
  router: ReturnType<typeof createRouter>,
  path: string,
): Promise<{ csp: string | null; body: string }> {
  const response = await router.fetch(new Request(`http://localhost${path}`));
  return {
    csp: response.headers.get("Content-Security-Policy"),
    body: await response.text(),
  };
}

Deno.test("secureHeaders: the nonce goes on private HTML only; other responses get the policy without it", async () => {
  const router = createRouter({
    middleware: [secureHeaders({ contentSecurityPolicy: POLICY })],
  });
  const html = "text/html; charset=utf-8";
  router.get(
    "/page",
    ({ get }) =>
      new Response(String(get(CspNonce)), {
        headers: { "Content-Type": html },
      }),
  );
  router.get("/xhtml", ({ get }) =>
    new Response(String(get(CspNonce)), {
      headers: { "Content-Type": "application/xhtml+xml" },
    }));
  router.get("/private", ({ get }) =>
    new Response(String(get(CspNonce)), {
      headers: { "Content-Type": html, "Cache-Control": "private, max-age=60" },
    }));
  router.get("/public", () =>
    new Response("<p>", {
      headers: {
        "Content-Type": html,
        "Cache-Control": "public, max-age=3600",
      },
    }));
  router.get("/shared", () =>
    new Response("<p>", {
      headers: {
        "Content-Type": html,
        "Cache-Control": "max-age=0, s-maxage=600",
      },
    }));
  router.get("/json", () => Response.json({ ok: true }));
  router.get(
    "/image",
    () => new Response("GIF89a", { headers: { "Content-Type": "image/gif" } }),
  );
  router.get("/away", () => Response.redirect("https://example.com/", 302));

  for (const path of ["/page", "/xhtml", "/private"]) {
    const { csp, body } = await policyOf(router, path);
    assert.match(body, /^[A-Za-z0-9+/]{22}==$/, path);
    assert.equal(
      csp,
      `default-src 'self'; script-src 'nonce-${body}'; style-src 'self' 'nonce-${body}'; upgrade-insecure-requests`,
      path,
    );
  }
  for (const path of ["/public", "/shared", "/json", "/image", "/away"]) {
    const { csp } = await policyOf(router, path);
    assert.equal(csp, WITHOUT_NONCE, path);
  }
});

Deno.test("secureHeaders before serveStatic: cacheable files get no nonce", async () => {
  const root = mkdtempSync(join(tmpdir(), "nonce-static-"));
  try {
    writeFileSync(join(root, "index.html"), "<h1>static</h1>");
    writeFileSync(join(root, "app.js"), "console.log(1)");
    const router = createRouter({
      middleware: [
        secureHeaders({
          contentSecurityPolicy: POLICY,
          contentSecurityPolicyReportOnly: { scriptSrc: ["'nonce'"] },
        }),
        serveStatic({ root, maxAge: 3600 }),
      ],
    });
    for (const path of ["/index.html", "/app.js"]) {
      const response = await router.fetch(
        new Request(`http://localhost${path}`),
      );
      await response.body?.cancel();
      assert.equal(response.status, 200);
      assert.match(response.headers.get("Cache-Control")!, /public/);
      assert.equal(
        response.headers.get("Content-Security-Policy"),
        WITHOUT_NONCE,
      );
      assert.equal(
        response.headers.get("Content-Security-Policy-Report-Only"),
        "script-src 'none'",
      );
    }
  } finally {
    rmSync(root, { recursive: true });
  }
});

// Vectors from Hono's secure-headers tests (honojs/hono at 28a9c128,
// src/middleware/secure-headers/index.test.ts, "CSP with combined modes"),
// on an HTML response: Hono puts the nonce on its text/plain responses too.
Deno.test("secureHeaders (Hono vectors): enforced and report-only policies, each with or without the nonce", async () => {
  const cases: [
    Parameters<typeof secureHeaders>[0],
    RegExp,
    RegExp,
  ][] = [
    [
      {
        contentSecurityPolicy: { defaultSrc: ["'self'"] },
        contentSecurityPolicyReportOnly: { scriptSrc: ["'self'", "'nonce'"] },
      },
      /^default-src 'self'$/,
      /^script-src 'self' 'nonce-[a-zA-Z0-9+/]+=*'$/,
    ],
    [
      {
        contentSecurityPolicy: { scriptSrc: ["'self'", "'nonce'"] },
        contentSecurityPolicyReportOnly: { defaultSrc: ["'self'"] },
      },
      /^script-src 'self' 'nonce-[a-zA-Z0-9+/]+=*'$/,
      /^default-src 'self'$/,
    ],
  ];
  for (const [options, enforced, reportOnly] of cases) {
    const router = createRouter({ middleware: [secureHeaders(options)] });
    router.get(
      "/",
      () => new Response("<p>", { headers: { "Content-Type": "text/html" } }),
    );
    const { csp } = await policyOf(router, "/");
    const response = await router.fetch(new Request("http://localhost/"));
    await response.body?.cancel();
    assert.match(csp!, enforced);
    assert.match(
      response.headers.get("Content-Security-Policy-Report-Only")!,
      reportOnly,
    );
  }
  // Both use the nonce: the same one.
  const router = createRouter({
    middleware: [secureHeaders({
      contentSecurityPolicy: { scriptSrc: ["'self'", "'nonce'"] },
      contentSecurityPolicyReportOnly: { styleSrc: ["'self'", "'nonce'"] },
    })],
  });
  router.get(
    "/",
    () => new Response("<p>", { headers: { "Content-Type": "text/html" } }),
  );
  const response = await router.fetch(new Request("http://localhost/"));
  await response.body?.cancel();
  const nonce = /'nonce-([^']+)'/.exec(
    response.headers.get("Content-Security-Policy")!,
  )?.[1];
  assert.ok(nonce);
  assert.ok(
    response.headers.get("Content-Security-Policy-Report-Only")!.includes(
      `'nonce-${nonce}'`,
    ),
  );
});
