// The live counter in a real browser: Debian's chromium, driven by
// playwright-core. The page must see two events arrive, raise no
// Content-Security-Policy violation, and when it closes, the server's
// event source must end.
import assert from "node:assert/strict";
import { chromium } from "playwright-core";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { createLiveApp } from "./app.ts";

Deno.test({
  name:
    "browser: the live counter shows events and its source ends with the page",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the live browser test");
    if (executablePath === undefined) return;
    const app = createLiveApp({ intervalMs: 150, log: () => {} });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      app.fetch,
    );
    const browser = await chromium.launch({
      executablePath,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-quic",
        "--no-first-run",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      page.on("console", (message) => {
        if (message.type() === "error") problems.push(message.text());
      });
      page.on("pageerror", (error) => problems.push(String(error)));
      await page.goto(`http://127.0.0.1:${server.addr.port}/`);
      // Two events have arrived and been shown.
      await page.locator("#log li").nth(1).waitFor({ timeout: 15_000 });
      assert.equal(await page.locator("#status").textContent(), "live");
      const shown = Number(await page.locator("#count").textContent());
      assert.ok(shown >= 1, `count ${shown}`);
      assert.equal(app.openStreams(), 1);
      assert.deepEqual(problems, []);

      await page.close();
      for (let i = 0; i < 100 && app.openStreams() > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(app.openStreams(), 0, "the source ended with the page");
    } finally {
      await browser.close();
      await server.shutdown();
    }
  },
});
