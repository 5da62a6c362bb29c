// Streamed documents end: a part that never settles (a Promise, an async
// iterable, an html.defer()) renders its error placeholder once the
// document's `timeout` passes, and the document closes; and the swap
// scripts carry secureHeaders()' nonce without the handler passing it.
// Portable: runs on Node and Bun through _tools/runtimes.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
import { compress } from "@fetchkit/toolkit/compress-middleware";

/** `promise`, or a failure when it has not settled within `ms`. */
async function within<T>(promise: Promise<T>, ms: number, what: string) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still open after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

const never = () => new Promise<string>(() => {});

Deno.test("createHtmlResponse: a part that never settles shows its placeholder at the deadline, and the document ends", async () => {
  const errors: [string, string][] = [];
  async function* silent(): AsyncGenerator<string> {
    yield "first";
    await new Promise(() => {});
  }
  const started = Date.now();
  const response = createHtmlResponse(
    html`
      <!doctype html>
      <body><p>${never()}</p><ul>${silent()}</ul>${html.defer(
        never(),
        html`<p>Loading…</p>`,
        { name: "comments" },
      )}<footer>end</footer></body>
    `,
    {
      timeout: 200,
      onError: (error, name) => errors.push([name, (error as Error).message]),
    },
  );
  const page = await within(response.text(), 3000, "the document");
  assert.ok(Date.now() - started < 2000, `${Date.now() - started} ms`);
  assert.match(page, /<p><span data-fk-error="part" role="alert">/);
  assert.match(page, /<ul>first<span data-fk-error="streamed part"/);
  assert.match(
    page,
    /<div id="fk-c-1" data-fk-deferred><span data-fk-error="comments"/,
  );
  assert.match(page, /<footer>end<\/footer><div id="fk-c-1"/);
  assert.match(page, /<\/script><\/body>\s*$/);
  assert.deepEqual(errors.map(([name]) => name).sort(), [
    "comments",
    "part",
    "streamed part",
  ]);
  for (const [, message] of errors) {
    assert.match(message, /did not settle within 200 ms/);
  }
});

Deno.test("createHtmlResponse: parts that settle in time are not cut; a bad timeout is a TypeError", async () => {
  const response = createHtmlResponse(
    html`<p>${new Promise((resolve) =>
      setTimeout(() => resolve("late"), 20)
    )}</p>`,
    { timeout: 2000 },
  );
  assert.equal(await response.text(), "<p>late</p>");
  for (const timeout of [0, -1, Number.NaN]) {
    assert.throws(
      () => createHtmlResponse(html`${Promise.resolve(1)}`, { timeout }),
      /timeout must be a positive number of milliseconds/,
    );
  }
});

Deno.test("createHtmlResponse: behind secureHeaders() with 'nonce', the swap scripts carry the request's nonce unasked", async () => {
  for (const inner of [[], [compress({ threshold: 0 })]]) {
    const router = createRouter({
      middleware: [
        secureHeaders({ contentSecurityPolicy: { scriptSrc: ["'nonce'"] } }),
        ...inner,
      ],
    });
    router.get("/", () =>
      createHtmlResponse(
        html`
          <!doctype html>
          <body>${html.defer(
            new Promise((resolve) => setTimeout(() => resolve("late"), 10)),
            html`<p>Loading…</p>`,
          )}</body>
        `,
      ));
    const response = await router.fetch(new Request("http://localhost/"));
    const policy = response.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
    assert.ok(nonce, policy);
    const page = await response.text();
    const scripts = [...page.matchAll(/<script[^>]*>/g)].map((m) => m[0]);
    assert.ok(scripts.length > 0, page);
    for (const script of scripts) {
      assert.equal(script, `<script nonce="${nonce}">`);
    }
  }
  // Without secureHeaders(), no nonce: a plain script.
  const plain = createRouter();
  plain.get("/", () =>
    createHtmlResponse(
      html`<body>${html.defer(Promise.resolve("x"), "…")}</body>`,
    ));
  const page = await (await plain.fetch(new Request("http://localhost/")))
    .text();
  assert.match(page, /<script>/);
});
