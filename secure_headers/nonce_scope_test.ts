// The CSP nonce reaches a streamed page's scripts without being passed,
// through awaits and timers, with requests overlapping, and never another
// request's; on Node the scope's hooks are off once no nonce'd request is
// in flight, and another AsyncLocalStorage of the app keeps working.
// Portable (runs on Node and Bun in the runtimes bundle).
import assert from "node:assert/strict";
import { AsyncLocalStorage, executionAsyncId } from "node:async_hooks";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { secureHeaders } from "@fetchkit/toolkit/secure-headers-middleware";
import { cspNonceScopeEnabled } from "../runtime/csp_nonce_scope.ts";

const versions = (globalThis as {
  process?: { versions?: Record<string, string | undefined> };
}).process?.versions;
const ON_NODE = typeof versions?.node === "string" &&
  versions.bun === undefined && versions.deno === undefined &&
  (globalThis as { Deno?: unknown }).Deno === undefined;

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// A page whose deferred part is swapped in by a script: the script must
// carry the response's nonce.
function router(): ReturnType<typeof createRouter> {
  const app = createRouter({
    middleware: [
      secureHeaders({ contentSecurityPolicy: { scriptSrc: ["'nonce'"] } }),
    ],
  });
  app.get("/:wait", async ({ params }) => {
    const wait = Number(params.wait);
    await sleep(wait);
    await Promise.resolve();
    // A timer's callback: the nonce follows it too.
    return await new Promise<Response>((resolve) =>
      setTimeout(() =>
        resolve(
          createHtmlResponse(
            html`<body>${
              html.defer(Promise.resolve(html`<b>${wait}</b>`), html`…`)
            }</body>`,
          ),
        ), wait)
    );
  });
  return app;
}

async function nonceOf(
  response: Response,
): Promise<{ policy: string; scripts: string[] }> {
  const policy = /'nonce-([^']+)'/.exec(
    response.headers.get("Content-Security-Policy")!,
  )![1];
  const text = await response.text();
  const scripts = [...text.matchAll(/<script nonce="([^"]*)">/g)].map((m) =>
    m[1]
  );
  return { policy, scripts };
}

// Whether a promise's continuation runs in an async resource of its own:
// true while promise hooks are on (Node), always false elsewhere.
async function promiseHooksOn(): Promise<boolean> {
  const ids = new Set<number>();
  for (let i = 0; i < 3; i++) {
    await null;
    ids.add(executionAsyncId());
  }
  return ids.size > 1;
}

Deno.test({
  name:
    "secureHeaders nonce scope (Node): the promise hooks are off once no nonce'd request is in flight",
  ignore: !ON_NODE,
  fn: async () => {
    // The first test of the file: alone, nothing turned the hooks on yet.
    // Another storage that ran earlier in the process (a test of
    // contextStorage() in the runtimes bundle) keeps Node's hooks on for
    // good: then only our storage's state can be checked.
    const othersHold = await promiseHooksOn();
    const app = router();
    const pending = app.fetch(new Request("http://localhost/5"));
    assert.equal(await promiseHooksOn(), true, "on while a page is in flight");
    assert.equal(cspNonceScopeEnabled(), true);
    const page = await nonceOf(await pending);
    assert.deepEqual(page.scripts, [page.policy]);
    assert.equal(cspNonceScopeEnabled(), false, "ours off once it returned");
    if (!othersHold) {
      assert.equal(await promiseHooksOn(), false, "off once it returned");
    }
  },
});

for (
  const [first, second] of [[5, 40], [40, 5]] as const
) {
  Deno.test(`secureHeaders nonce scope: overlapping streamed pages each get their own nonce (waits ${first} and ${second} ms)`, async () => {
    const app = router();
    const [a, b, c] = await Promise.all([
      Promise.resolve(app.fetch(new Request(`http://localhost/${first}`)))
        .then(nonceOf),
      Promise.resolve(app.fetch(new Request(`http://localhost/${second}`)))
        .then(nonceOf),
      sleep(2).then(() =>
        app.fetch(new Request(`http://localhost/${first + 1}`))
      ).then(nonceOf),
    ]);
    for (const page of [a, b, c]) {
      assert.deepEqual(page.scripts, [page.policy], "the response's own nonce");
    }
    assert.equal(new Set([a.policy, b.policy, c.policy]).size, 3);
  });
}

Deno.test("secureHeaders nonce scope: a page after the scope went idle gets its nonce again", async () => {
  const app = router();
  for (let i = 0; i < 3; i++) {
    const page = await nonceOf(
      await app.fetch(new Request("http://localhost/1")),
    );
    assert.deepEqual(page.scripts, [page.policy]);
  }
});

Deno.test("secureHeaders nonce scope: a failing handler leaves the scope (the next page still gets its nonce)", async () => {
  const app = createRouter({
    middleware: [
      secureHeaders({ contentSecurityPolicy: { scriptSrc: ["'nonce'"] } }),
    ],
  });
  app.get("/fail", async () => {
    await sleep(1);
    throw new Error("boom");
  });
  app.get("/", async () => {
    await sleep(1);
    return createHtmlResponse(
      html`<body>${html.defer(Promise.resolve("x"), "…")}</body>`,
    );
  });
  const failed = await app.fetch(new Request("http://localhost/fail"));
  assert.equal(failed.status, 500);
  await failed.body?.cancel();
  const page = await nonceOf(await app.fetch(new Request("http://localhost/")));
  assert.deepEqual(page.scripts, [page.policy]);
});

Deno.test("secureHeaders nonce scope: another AsyncLocalStorage of the app keeps its store through the pages", async () => {
  const app = router();
  const own = new AsyncLocalStorage<string>();
  await own.run("app's", async () => {
    const page = await nonceOf(
      await app.fetch(new Request("http://localhost/3")),
    );
    assert.deepEqual(page.scripts, [page.policy]);
    assert.equal(own.getStore(), "app's");
    await sleep(2);
    assert.equal(own.getStore(), "app's");
    await new Promise<void>((resolve) =>
      setTimeout(() => {
        assert.equal(own.getStore(), "app's");
        resolve();
      }, 1)
    );
    assert.equal(own.getStore(), "app's");
  });
  // The app's storage being enabled keeps Node's hooks on, and ours still
  // hands each page its nonce.
  const page = await nonceOf(
    await app.fetch(new Request("http://localhost/2")),
  );
  assert.deepEqual(page.scripts, [page.policy]);
});
