// The app's pages compressed and tagged, in a real browser: Debian's
// chromium (playwright-core) against the real main.ts. Pages render with
// their stylesheet, arrive compressed with an entity tag, and no
// Content-Security-Policy violation is reported; the tag sent back gets a
// 304 from the same server.
import assert from "node:assert/strict";
import { launchChromium } from "../../_tools/browser.ts";
import { startMain } from "./_test_server.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";

Deno.test({
  name:
    "browser: pages arrive compressed with ETags, render styled, no CSP violation; a 304 over HTTP",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the compression browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "auth-compress-" });
    const server = await startMain({ DENO_KV_PATH: `${dir}/auth.sqlite` });
    const browser = await launchChromium(executablePath);
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

      // The pages read the session, so session() marks them no-store: the
      // browser keeps no copy to revalidate. A client that sends the tag
      // back still gets a 304 from the real server, with the 200's Vary
      // and weak tag.
      const page200 = await fetch(base + "/auth/register", {
        headers: { "Accept-Encoding": "br" },
      });
      await page200.body?.cancel();
      const tag = page200.headers.get("ETag")!;
      assert.match(tag, /^W\/"[\w-]{27}"$/);
      const page304 = await fetch(base + "/auth/register", {
        headers: { "Accept-Encoding": "br", "If-None-Match": tag },
      });
      assert.equal(page304.status, 304);
      assert.equal(await page304.text(), "");
      assert.equal(page304.headers.get("ETag"), tag);
      assert.match(page304.headers.get("Vary") ?? "", /Accept-Encoding/);
      assert.equal(page304.headers.get("Cache-Control"), "no-store");
      assert.match(
        page304.headers.get("Content-Security-Policy") ?? "",
        /default-src/,
      );
      await page.reload();
      assert.equal(await page.locator("h1").textContent(), "Register");
      const margin = await page.evaluate<string>(
        "getComputedStyle(document.body).margin",
      );
      assert.equal(margin, "0px", "still styled after a reload");
      assert.deepEqual(violations, []);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
