// Two-factor authentication in a real browser (Debian's chromium, without
// running any script of the app's for these pages), against the real
// main.ts: the security page, re-authentication, enrolment with the
// secret read from the page and the code made by totpCode(), the backup
// codes, sign-in with a code, turning it off with a backup code. Each
// page is checked by axe-core at 1280 and 390 px and photographed into
// $SCREENSHOT_DIR (a temp folder by default).
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { totpCode } from "@fetchkit/toolkit/totp";
import { runAxe } from "../../_tools/axe.ts";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { startMain } from "./_test_server.ts";

const EMAIL = "grace.hopper@example.com";
const PASSWORD = "correct horse battery";

/** The text of `selector` once it shows, or the page's main on a miss. */
async function textOf(page: Page, selector: string): Promise<string> {
  const element = page.locator(selector).first();
  try {
    await element.waitFor({ state: "visible", timeout: 15_000 });
  } catch (error) {
    const main = await page.locator("main").innerHTML().catch(() => "");
    throw new Error(`${selector} did not show on ${page.url()}:\n${main}`, {
      cause: error,
    });
  }
  return (await element.textContent()) ?? "";
}

Deno.test({
  name:
    "two-factor in chromium: confirm, enrol from the page's secret, backup codes, sign in with a code, turn off with a backup code",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the two-factor browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "auth-two-factor-" });
    const shots = Deno.env.get("SCREENSHOT_DIR") ?? `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const server = await startMain({ DENO_KV_PATH: `${dir}/auth.sqlite` });
    const base = server.url.replace("127.0.0.1", "localhost");
    const browser = await launchChromium(executablePath);
    try {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 720 },
      });
      const page = await context.newPage();
      const problems: string[] = [];
      page.on("pageerror", (error) => problems.push(`page error: ${error}`));
      page.on("console", (message) => {
        // 422 and 429 pages are refusals on purpose; a blocked script is not.
        if (/Content Security Policy/i.test(message.text())) {
          problems.push(message.text());
        }
      });
      const violations = () => runAxe(page);
      /** Screenshots and axe at 1280 and 390 px; nothing wider than 390. */
      const shot = async (name: string) => {
        await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
        assert.deepEqual(await violations(), [], `${name} at 1280 px`);
        await page.setViewportSize({ width: 390, height: 844 });
        const width = await page.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(width <= 390, `${name} is ${width} px wide at 390`);
        assert.deepEqual(await violations(), [], `${name} at 390 px`);
        await page.screenshot({
          path: `${shots}/${name}-390.png`,
          fullPage: true,
        });
        await page.setViewportSize({ width: 1280, height: 720 });
      };
      const logIn = async () => {
        await page.goto(`${base}/auth/login`);
        await page.fill("#email", EMAIL);
        await page.fill("#password", PASSWORD);
        await page.getByRole("button", { name: "Log in" }).click();
      };

      await page.goto(`${base}/auth/register`);
      await page.fill("#name", "Grace Hopper");
      await page.fill("#email", EMAIL);
      await page.fill("#password", PASSWORD);
      await page.click("button[type=submit]");
      await page.waitForURL(`${base}/dashboard`);

      // The security page, then "Set up": the password first.
      await page.getByRole("link", { name: "Security" }).click();
      await page.waitForURL(`${base}/profile/security`);
      assert.match(await textOf(page, "#two-factor-heading + p"), /Off\./);
      await shot("security");
      await page.getByRole("link", { name: "Set up two-factor authentication" })
        .click();
      await page.waitForURL(
        /\/auth\/confirm\?returnTo=%2Fprofile%2Ftwo-factor$/,
      );
      await shot("confirm");
      await page.fill("#password", "not my password");
      await page.getByRole("button", { name: "Confirm" }).click();
      assert.match(await textOf(page, ".flash.error"), /not right/);
      await shot("confirm-422");
      await page.fill("#password", PASSWORD);
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.waitForURL(`${base}/profile/two-factor`);

      // The QR code inline, the link, the secret in groups of four.
      assert.equal(await page.locator(".qr svg[role=img]").count(), 1);
      const href = await page.getByRole("link", {
        name: "add the account to your app",
      }).getAttribute("href");
      assert.match(href!, /^otpauth:\/\/totp\/fetchkit%20auth%20example:/);
      const grouped = await textOf(page, "#totp-secret");
      assert.match(grouped, /^([A-Z2-7]{4} ){7}[A-Z2-7]{4}$/);
      const secret = grouped.replaceAll(" ", "");
      assert.equal(new URL(href!).searchParams.get("secret"), secret);
      await shot("two-factor-setup");
      await page.fill("#code", "123456");
      await page.getByRole("button", { name: "Turn on" }).click();
      assert.match(await textOf(page, "#code-error"), /not right/);
      assert.equal(await page.evaluate("document.activeElement.id"), "code");
      await shot("two-factor-setup-422");
      await page.fill("#code", await totpCode(secret));
      await page.getByRole("button", { name: "Turn on" }).click();
      const codes = (await page.locator("#backup-codes li").allTextContents())
        .map((code) => code.trim());
      assert.equal(codes.length, 10);
      for (const code of codes) assert.match(code, /^[a-z2-7]{4}-[a-z2-7]{4}$/);
      await shot("two-factor-backup-codes");

      // Sign out, and in: the password, then the code.
      await page.getByRole("button", { name: "Log out" }).click();
      await page.waitForURL(`${base}/auth/login`);
      await logIn();
      await page.waitForURL(`${base}/auth/two-factor`);
      await shot("two-factor-login");
      await page.fill("#code", "000000");
      await page.getByRole("button", { name: "Verify" }).click();
      assert.match(await textOf(page, "#code-error"), /not right/);
      await shot("two-factor-login-422");
      await page.goto(`${base}/dashboard`);
      await page.waitForURL(/\/auth\/login/);
      // The enrolment used this step's code: the next step's is accepted.
      await logIn();
      await page.waitForURL(`${base}/auth/two-factor`);
      await page.fill(
        "#code",
        await totpCode(secret, { time: Date.now() + 30_000 }),
      );
      await page.getByRole("button", { name: "Verify" }).click();
      await page.waitForURL(`${base}/dashboard`);
      await page.goto(`${base}/profile/security`);
      assert.match(await textOf(page, "#backup-codes-left"), /^10$/);
      await shot("security-two-factor-on");

      // Turning it off: a new sign-in is not a confirmation.
      await page.getByRole("link", { name: "Manage two-factor authentication" })
        .click();
      await page.waitForURL(/\/auth\/confirm/);
      await page.fill("#password", PASSWORD);
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.waitForURL(`${base}/profile/two-factor`);
      await shot("two-factor-manage");

      // New backup codes from the security page (confirmed just now):
      // shown once, and they replace the old ones.
      await page.goto(`${base}/profile/security`);
      await page.getByRole("button", { name: "Make new backup codes" }).click();
      await page.waitForURL(`${base}/profile/two-factor/backup-codes`);
      const fresh = (await page.locator("#backup-codes li").allTextContents())
        .map((code) => code.trim());
      assert.equal(fresh.length, 10);
      assert.ok(!fresh.includes(codes[1]));
      await shot("two-factor-new-backup-codes");
      await page.goto(`${base}/profile/two-factor`);
      await page.fill("#code", codes[1]);
      await page.getByRole("button", { name: "Turn off" }).click();
      assert.match(await textOf(page, "#code-error"), /not right/);
      await page.fill("#code", fresh[0]);
      await page.getByRole("button", { name: "Turn off" }).click();
      await page.waitForURL(`${base}/profile/security`);
      assert.match(await textOf(page, ".flash.notice"), /is off/);
      assert.match(await textOf(page, "#two-factor-heading + p"), /Off\./);
      assert.deepEqual(problems, []);
      console.log(`screenshots: ${shots}`);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
