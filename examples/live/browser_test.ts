// The board in a real browser: Debian's chromium, driven by playwright-core,
// against two real servers (main.ts, two processes) on one redis-server.
// A page on A (server-sent events) and a page on B (a WebSocket) each see
// what the other posts; a page on a phone (390 px) fits its screen; no CSP violation or script error; a page
// whose server dropped its stream resumes without losing a message.
// Screenshots go to $SCREENSHOT_DIR (default: a temp folder, printed).
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { redisServerOrSkip, startRedis } from "../../_tools/redis.ts";
import { startServerProcess } from "../../_tools/server_process.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

Deno.test({
  name:
    "browser: pages on two servers (SSE on A, WebSocket on B) see each other's messages, at 1280 and 390 px, without CSP violations",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the live browser test");
    if (executablePath === undefined) return;
    const redisServer = await redisServerOrSkip();
    if (redisServer === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "live-browser-" });
    const shots = Deno.env.get("SCREENSHOT_DIR") ?? `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const redis = await startRedis(redisServer);
    const env = {
      PORT: "0",
      PUBSUB: "redis",
      REDIS_URL: redis.url,
      // Short stream lives: the pages must resume across them.
      STREAM_LIFETIME_MS: "3000",
      // One budget for both servers (counted in Redis), met below.
      POSTS_PER_MINUTE: "10",
    };
    const a = await startServerProcess(MAIN, [], {
      env: { ...env, SERVER_NAME: "server A" },
    });
    const b = await startServerProcess(MAIN, [], {
      env: { ...env, SERVER_NAME: "server B" },
    });
    const browser = await launchChromium(executablePath);
    try {
      const problems: string[] = [];
      const open = async (url: string, width: number): Promise<Page> => {
        const context = await browser.newContext({
          viewport: { width, height: width < 500 ? 844 : 720 },
        });
        await context.addInitScript(`document.addEventListener(
          "securitypolicyviolation",
          (e) => console.error("CSP violation: " + e.violatedDirective),
        )`);
        const page = await context.newPage();
        page.on("console", (message) => {
          if (message.type() === "error") problems.push(message.text());
        });
        page.on("pageerror", (error) => problems.push(String(error)));
        await page.goto(url);
        await page.locator("#status.live").waitFor({ timeout: 10_000 });
        return page;
      };
      const post = async (page: Page, name: string, text: string) => {
        await page.fill("input[name=name]", name);
        await page.fill("input[name=text]", text);
        await page.click("button[type=submit]");
      };
      const texts = (page: Page) =>
        page.locator("#messages li .text").allTextContents();

      const pageA = await open(a.origin, 1280);
      // B's page receives and posts over a WebSocket.
      const pageB = await open(`${b.origin}/?transport=ws`, 390);
      assert.equal(
        await pageB.locator("#status").textContent(),
        "live (WebSocket)",
      );
      assert.equal(await pageA.locator("#server").textContent(), "server A");
      assert.equal(await pageB.locator("#server").textContent(), "server B");

      await post(pageA, "Ada", "Hello from A");
      await pageB.locator("#messages li").first().waitFor();
      await post(pageB, "Bob", "Hi Ada, this is B <b>not bold</b>");
      await pageA.locator("#messages li").nth(1).waitFor();
      for (const page of [pageA, pageB]) {
        // Newest first, the same on both.
        await page.locator("#messages li").nth(1).waitFor();
        assert.deepEqual(await texts(page), [
          "Hi Ada, this is B <b>not bold</b>",
          "Hello from A",
        ]);
      }
      assert.match(
        await pageA.locator("#messages li .meta").first().textContent() ?? "",
        /^Bob via server B at /,
      );
      // Text from a message is text, never markup.
      assert.equal(
        await pageA.locator("#messages b:text('not bold')").count(),
        0,
      );

      // A message that is too long gets the server's reason beside the form.
      await pageA.evaluate(
        `document.querySelector("input[name=text]").removeAttribute("maxlength")`,
      );
      await post(pageA, "Ada", "x".repeat(501));
      await pageA.locator("#error:text('text is at most 500 characters.')")
        .waitFor();

      // The streams end after 3 s of life and the pages reconnect: what is
      // posted across that keeps arriving, once each.
      for (let i = 1; i <= 5; i++) {
        await post(pageA, "Ada", `tick ${i}`);
        await new Promise((resolve) => setTimeout(resolve, 900));
      }
      await pageB.locator("#messages li .text:text('tick 5')").waitFor();
      const onB = await texts(pageB);
      assert.deepEqual(onB.slice(0, 5), [
        "tick 5",
        "tick 4",
        "tick 3",
        "tick 2",
        "tick 1",
      ]);
      assert.equal(onB.length, 7, onB.join(" | "));

      // A reload shows the messages the board keeps, not "No messages yet".
      await pageB.reload();
      await pageB.locator("#status.live").waitFor({ timeout: 10_000 });
      await pageB.locator("#messages li .text:text('tick 5')").waitFor();
      assert.equal(await pageB.locator("#empty").isHidden(), true);
      assert.deepEqual((await texts(pageB)).slice(0, 2), ["tick 5", "tick 4"]);

      // Fields at 16 px: a phone does not zoom in on focus.
      assert.equal(
        await pageB.evaluate<string>(
          `getComputedStyle(document.querySelector("input[name=text]")).fontSize`,
        ),
        "16px",
      );

      // Over the budget (10 a minute from this address, over both servers
      // and both ways in): the page says the limit and when to retry.
      // (GCRA: 10 back to back, then one every 6 s as time passes.)
      for (let i = 1; i <= 12; i++) {
        await post(pageA, "Ada", `more ${i}`);
        await pageA.locator("button[type=submit]:enabled").waitFor();
        if (await pageA.locator("#error").textContent()) break;
      }
      const limited = /^At most 10 posts a minute; try again in \d+ s\.$/;
      await pageA.locator("#error:has-text('At most 10 posts a minute')")
        .waitFor();
      assert.match(await pageA.locator("#error").textContent() ?? "", limited);
      await post(pageB, "Bob", "over the socket too");
      await pageB.locator("#error:has-text('At most 10 posts a minute')")
        .waitFor();
      assert.match(await pageB.locator("#error").textContent() ?? "", limited);

      // A phone: nothing wider than its screen.
      const width = await pageB.evaluate<number>(
        "document.documentElement.scrollWidth",
      );
      assert.ok(width <= 390, `scrollWidth ${width} at 390 px`);

      await pageA.locator("#status.live").waitFor();
      await pageB.locator("#status.live").waitFor();
      await pageA.screenshot({ path: `${shots}/board-a-1280.png` });
      await pageB.screenshot({
        path: `${shots}/board-b-390.png`,
        fullPage: true,
      });
      console.log(`screenshots: ${shots}`);
      assert.deepEqual(
        problems.filter((p) => !/status of (422|429)/.test(p)),
        [],
      );
    } finally {
      await browser.close();
      await a.stop();
      await b.stop();
      await redis.stop();
    }
  },
});
