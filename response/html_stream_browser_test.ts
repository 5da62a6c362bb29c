// A streamed page with an html.defer() part in a real browser (Debian's
// chromium through playwright-core), under a nonce-only script policy from
// secureHeaders(). With JavaScript: the shell and the fallback show while
// the slow part is pending (the test resolves it only after seeing them),
// then the swap script (allowed by its nonce) puts the part in place.
// Without JavaScript: the fallback stays, the part shows at the end of the
// page. Screenshots go to $SCREENSHOT_DIR (default: a temp folder, printed).
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import {
  CspNonce,
  secureHeaders,
} from "@fetchkit/toolkit/secure-headers-middleware";
import { launchChromium } from "../_tools/browser.ts";
import { chromiumOrSkip } from "../_tools/chromium.ts";

const STYLE = `body { font: 16px/1.5 system-ui, sans-serif; margin: 2rem; }
  #loading { color: #666; font-style: italic; }
  [data-fk-deferred] { border-top: 2px dashed #c00; margin-top: 1rem; }`;

/** The app: each request waits on a promise the test resolves. */
function app() {
  const waiting: ((comments: string[]) => void)[] = [];
  const router = createRouter({
    middleware: [
      secureHeaders({
        contentSecurityPolicy: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'nonce'"],
          styleSrc: ["'nonce'"],
        },
      }),
    ],
  });
  router.get("/", ({ get }) => {
    const comments = new Promise<string[]>((resolve) => waiting.push(resolve));
    const nonce = get(CspNonce);
    // deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
    const page: SafeHtml = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Streamed post</title>
<style nonce="${nonce}">${html.raw(STYLE)}</style></head>
<body><main><h1>A streamed post</h1><p>${Promise.resolve("The shell & the first paragraph.")}</p>
<section id="comments"><h2>Comments</h2>${html.defer(
  comments.then((list) => html`<ul>${list.map((c) => html`<li>${c}</li>`)}</ul>`),
  html`<p id="loading">Loading comments…</p>`,
  { name: "comments" },
)}</section>
<footer id="footer">The end of the post.</footer></main></body></html>`;
    return createHtmlResponse(page, { nonce });
  });
  return { router, waiting };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

Deno.test({
  name:
    "streamed page in chromium: fallback first, then swapped in (nonce'd script); without JavaScript, at the end",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip(
      "the streamed page browser test",
    );
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "html-stream-browser-" });
    const shots = Deno.env.get("SCREENSHOT_DIR") ?? `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const { router, waiting } = app();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      router.fetch,
    );
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const browser = await launchChromium(executablePath);
    try {
      const shot = (page: Page, name: string) =>
        page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });

      // With JavaScript.
      const withJs = await browser.newContext({
        viewport: { width: 640, height: 480 },
      });
      const page = await withJs.newPage();
      const refused: string[] = [];
      page.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) {
          refused.push(message.text());
        }
      });
      await page.goto(url, { waitUntil: "commit" });
      // The shell and the fallback are on screen, the comments not resolved.
      await page.locator("#loading").waitFor({ state: "visible" });
      assert.equal(waiting.length, 1);
      assert.equal(
        await page.locator("main > p").textContent(),
        "The shell & the first paragraph.",
      );
      await shot(page, "1-js-loading");
      waiting[0](["First!", "<script>alert(1)</script>"]);
      await page.locator("#comments li").first().waitFor();
      await page.waitForLoadState("load");
      assert.deepEqual(await page.locator("#comments li").allTextContents(), [
        "First!",
        "<script>alert(1)</script>",
      ]);
      assert.equal(await page.locator("#loading").count(), 0, "fallback gone");
      assert.equal(await page.locator("[data-fk-deferred]").count(), 0);
      assert.equal(await page.locator("template").count(), 0, "markers gone");
      // The list sits in its section, before the footer.
      // (Strings: evaluated in the page, where document exists.)
      const order = await page.evaluate(
        `!!(document.querySelector("#comments ul").compareDocumentPosition(
          document.getElementById("footer")) & Node.DOCUMENT_POSITION_FOLLOWING)`,
      );
      assert.ok(order, "the comments come before the footer");
      assert.deepEqual(refused, [], "the policy allowed the swap script");
      await shot(page, "2-js-done");
      await withJs.close();

      // Without JavaScript.
      const noJs = await browser.newContext({
        viewport: { width: 640, height: 480 },
        javaScriptEnabled: false,
      });
      const plain = await noJs.newPage();
      await plain.goto(url, { waitUntil: "commit" });
      await plain.locator("#loading").waitFor({ state: "visible" });
      await until(() => waiting.length === 2, "the second request");
      waiting[1](["Seen without JavaScript"]);
      await plain.waitForLoadState("load");
      assert.equal(
        await plain.locator("#loading").textContent(),
        "Loading comments…",
        "the fallback stays in place",
      );
      const part = plain.locator("[data-fk-deferred] li");
      assert.equal(await part.textContent(), "Seen without JavaScript");
      assert.ok(await part.isVisible(), "the content is shown");
      const atEnd = await plain.evaluate(
        `(() => { const part = document.querySelector("[data-fk-deferred]");
          return part.parentElement === document.body &&
            !!(document.getElementById("footer").compareDocumentPosition(part) &
              Node.DOCUMENT_POSITION_FOLLOWING); })()`,
      );
      assert.ok(
        atEnd,
        "the content is at the end of the page, after the footer",
      );
      await shot(plain, "3-no-js");
      await noJs.close();
      console.log(`screenshots in ${shots}`);
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
});

Deno.test({
  name:
    "streamed page in chromium: the swap script carries secureHeaders()' nonce unasked; a part that never settles ends at the deadline",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip(
      "the streamed page browser test",
    );
    if (executablePath === undefined) return;
    const router = createRouter({
      middleware: [
        secureHeaders({
          contentSecurityPolicy: {
            defaultSrc: ["'self'"],
            scriptSrc: ["'nonce'"],
          },
        }),
      ],
    });
    const page = (part: Promise<string>) =>
      html`
        <!doctype html>
        <html lang="en">
          <head>
            <meta charset="utf-8">
            <title>Unasked nonce</title>
          </head>
          <body>
            <main>
              <h1>Post</h1>
              <section id="comments">${html.defer(
                part,
                html`<p id="loading">Loading comments…</p>`,
                {
                  name: "comments",
                },
              )}</section>
              <footer id="footer">End.</footer>
            </main>
          </body>
        </html>
      `;
    // No nonce passed by the handler.
    router.get("/late", () =>
      createHtmlResponse(
        page(new Promise((resolve) => setTimeout(() => resolve("Hello"), 300))),
      ));
    router.get("/never", () =>
      createHtmlResponse(page(new Promise(() => {})), {
        timeout: 500,
        onError: () => {},
      }));
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      router.fetch,
    );
    const base = `http://127.0.0.1:${server.addr.port}`;
    const browser = await launchChromium(executablePath);
    try {
      const tab = await browser.newPage();
      const refused: string[] = [];
      tab.on("console", (message) => {
        if (/Content Security Policy/i.test(message.text())) {
          refused.push(message.text());
        }
      });
      await tab.goto(`${base}/late`);
      await tab.waitForLoadState("load");
      assert.equal(await tab.locator("#comments").textContent(), "Hello");
      assert.equal(await tab.locator("#loading").count(), 0, "fallback gone");
      assert.deepEqual(refused, [], "the policy allowed the swap script");

      const started = Date.now();
      await tab.goto(`${base}/never`);
      await tab.waitForLoadState("load");
      assert.ok(Date.now() - started < 5000, `${Date.now() - started} ms`);
      assert.equal(
        await tab.locator('#comments [data-fk-error="comments"]').textContent(),
        "The comments could not be loaded.",
      );
      assert.equal(await tab.locator("#loading").count(), 0);
      assert.deepEqual(refused, []);
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
});
