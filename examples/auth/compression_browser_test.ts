// The app's pages compressed and tagged, in a real browser: Debian's
// chromium (playwright-core) against the real main.ts. Pages render with
// their stylesheet, arrive compressed with an entity tag, a reload is
// answered 304, and no Content-Security-Policy violation is reported.
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { startMain } from "./_test_server.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";

Deno.test({
  name:
    "browser: pages arrive compressed with ETags, render styled, revalidate with 304, no CSP violation",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the compression browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "auth-compress-" });
    const server = await startMain({ DENO_KV_PATH: `${dir}/auth.sqlite` });
    const browser = await chromium.launch({
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
      ],
    });
    try {
      const context = await browser.newContext();
      await context.addInitScript(`document.addEventListener(
        "securitypolicyviolation",
        (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI),
      )`);
      const page = await context.newPage();
      const violations: string[] = [];
      page.on("console", (message) => {
        const text = message.text();
        if (/CSP violation|Content Security Policy/i.test(text)) {
          violations.push(text);
        }
      });
      page.on("pageerror", (error) => violations.push(`page error: ${error}`));
      const base = server.url;

      const encodings: Record<string, string | undefined> = {};
      page.on("response", async (response) => {
        if (response.url().endsWith("/assets/style.css")) {
          encodings.css = (await response.allHeaders())["content-encoding"];
        }
      });
      for (const path of ["/", "/auth/login", "/auth/register"]) {
        const response = await page.goto(base + path);
        assert.ok(response !== null);
        assert.equal(response.status(), 200, path);
        const headers = await response.allHeaders();
        encodings[path] = headers["content-encoding"];
        if (headers["content-encoding"] === undefined) {
          // Under compress()'s 1 KiB threshold: sent as it is, strong tag.
          assert.ok(Number(headers["content-length"]) < 1024, path);
          assert.match(headers["etag"] ?? "", /^"[\w-]{27}"$/, path);
        } else {
          // Chromium asks for gzip, deflate, br, zstd: br wins.
          assert.equal(headers["content-encoding"], "br", path);
          assert.equal(headers["content-length"], undefined, path);
          assert.match(headers["vary"] ?? "", /Accept-Encoding/i, path);
          assert.match(headers["etag"] ?? "", /^W\/"[\w-]{27}"$/, path);
        }
        assert.match(
          headers["content-security-policy"] ?? "",
          /default-src/,
          path,
        );
        // Rendered, and styled by the stylesheet the policy allows.
        assert.ok(await page.locator("h1").count() > 0, path);
        const margin = await page.evaluate<string>(
          "getComputedStyle(document.body).margin",
        );
        assert.equal(margin, "0px", `${path}: style.css applied`);
      }
      // The stylesheet and the larger pages came compressed.
      assert.equal(encodings.css, "br");
      assert.equal(encodings["/auth/register"], "br");

      // Revalidation: the browser sends the tag back; the server answers
      // 304 (Chromium reports the page from its cache as 200, with the
      // 304's headers merged in: no Content-Type came over the wire).
      const sent: Array<string | undefined> = [];
      const received: Array<Record<string, string>> = [];
      page.on("request", async (request) => {
        if (request.url() === base + "/auth/register") {
          sent.push((await request.allHeaders())["if-none-match"]);
        }
      });
      page.on("response", async (response) => {
        if (response.url() === base + "/auth/register") {
          received.push(await response.allHeaders());
        }
      });
      await page.reload();
      assert.equal(await page.locator("h1").textContent(), "Register");
      assert.match(sent[0] ?? "", /^W\/"[\w-]{27}"$/);
      assert.equal(received.length, 1);
      assert.equal(received[0]["content-type"], undefined, "a 304 came");
      assert.equal(received[0]["etag"], sent[0], "the 304 keeps the weak tag");
      assert.match(received[0]["vary"] ?? "", /Accept-Encoding/i);
      const margin = await page.evaluate<string>(
        "getComputedStyle(document.body).margin",
      );
      assert.equal(margin, "0px", "still styled after the 304");
      assert.deepEqual(violations, []);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
