import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { csrf, type CsrfOptions } from "@fetchkit/toolkit/csrf-middleware";

function app(options?: CsrfOptions) {
  const router = createRouter({ middleware: [csrf(options)] });
  const ok = () => new Response("ok");
  router.get("/", ok);
  router.post("/", ok);
  router.put("/", ok);
  router.delete("/", ok);
  router.any("/any", ok);
  return router;
}

function send(
  method: string,
  headers: Record<string, string>,
  path = "/",
): Request {
  return new Request(`http://app.example${path}`, { method, headers });
}

async function status(
  request: Request,
  options?: CsrfOptions,
): Promise<number> {
  const response = await app(options).fetch(request);
  await response.body?.cancel();
  return response.status;
}

Deno.test("csrf: Sec-Fetch-Site decides for unsafe methods", async () => {
  for (const method of ["POST", "PUT", "DELETE"]) {
    assert.equal(
      await status(send(method, { "sec-fetch-site": "cross-site" })),
      403,
      method,
    );
    assert.equal(
      await status(send(method, { "sec-fetch-site": "same-site" })),
      403,
    );
    assert.equal(
      await status(send(method, { "sec-fetch-site": "same-origin" })),
      200,
    );
    assert.equal(await status(send(method, { "sec-fetch-site": "none" })), 200);
  }
  // PATCH and custom methods are unsafe too.
  assert.equal(
    await status(send("PATCH", { "sec-fetch-site": "cross-site" }, "/any")),
    403,
  );
});

Deno.test("csrf: safe methods always pass", async () => {
  for (const method of ["GET", "HEAD", "OPTIONS"]) {
    const s = await status(
      send(method, {
        "sec-fetch-site": "cross-site",
        origin: "https://evil.example",
      }),
    );
    assert.ok(s < 400, `${method} answered ${s}`);
  }
});

Deno.test("csrf: without Sec-Fetch-Site, Origin is compared with the host", async () => {
  assert.equal(
    await status(send("POST", { origin: "https://evil.example" })),
    403,
  );
  assert.equal(await status(send("POST", { origin: "null" })), 403);
  assert.equal(await status(send("POST", { origin: "not a url" })), 403);
  // Same host (scheme ignored: TLS may end at a proxy).
  assert.equal(
    await status(send("POST", { origin: "https://app.example" })),
    200,
  );
  // The Host header wins over the URL (as a proxy forwards it).
  assert.equal(
    await status(
      send("POST", {
        origin: "https://public.example",
        host: "public.example",
      }),
    ),
    200,
  );
  // A port is part of the host.
  assert.equal(
    await status(send("POST", { origin: "http://app.example:8080" })),
    403,
  );
  // Neither header: not a browser's cross-site request.
  assert.equal(await status(send("POST", {})), 200);
});

Deno.test("csrf: allowedOrigins trusts listed origins only", async () => {
  const options = { allowedOrigins: ["https://admin.example"] };
  assert.equal(
    await status(
      send("POST", {
        "sec-fetch-site": "cross-site",
        origin: "https://admin.example",
      }),
      options,
    ),
    200,
  );
  assert.equal(
    await status(
      send("POST", {
        "sec-fetch-site": "cross-site",
        origin: "https://admin.example.evil",
      }),
      options,
    ),
    403,
  );
});

Deno.test("csrf: a refused request says Forbidden, or what onRejected answers", async () => {
  const refused = await app().fetch(
    send("POST", { "sec-fetch-site": "cross-site" }),
  );
  assert.equal(refused.status, 403);
  assert.equal(await refused.text(), "Forbidden");
  const custom = await app({
    onRejected: ({ url }) =>
      new Response(`no ${url.pathname}`, { status: 403 }),
  }).fetch(send("POST", { "sec-fetch-site": "cross-site" }));
  assert.equal(await custom.text(), "no /");
});

Deno.test("csrf: the handler does not run for a refused request", async () => {
  let ran = false;
  const router = createRouter({ middleware: [csrf()] });
  router.post("/", () => {
    ran = true;
    return new Response("ok");
  });
  await router.fetch(send("POST", { "sec-fetch-site": "cross-site" }));
  assert.equal(ran, false);
});

Deno.test("csrf: allowedOrigins entries must be origins", () => {
  assert.throws(
    () => csrf({ allowedOrigins: ["https://a.example/"] }),
    /must be an origin/,
  );
  assert.throws(() => csrf({ allowedOrigins: ["a.example"] }), /not a URL/);
});
