// "Sign in with <provider>" in headless chromium, against the real
// main.ts (configured by environment variables, as a user would) and
// panva's oidc-provider on 127.0.0.1: the whole authorization-code +
// PKCE flow through the provider's own login and consent pages, with
// JavaScript turned off in the browser; the unverified-email refusal;
// axe on the login page with buttons and on the refusal, at 1280 and
// 390 px. Screenshots go to a
// temp folder (printed), or with SAVE_SCREENSHOTS=1 to
// examples/auth/screenshots/.
import assert from "node:assert/strict";
import { runAxe, screenshotsDir } from "../../_tools/axe.ts";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { freePort } from "../../_tools/redis.ts";
import { startMain } from "./_test_server.ts";
import {
  CONFIDENTIAL_CLIENT,
  startOidcProvider,
} from "../../oauth/_test_oidc_provider.ts";

Deno.test({
  name:
    "oauth browser: sign in with the provider's login and consent pages (no JavaScript), unverified email refused, axe clean at 1280 and 390 px",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the OAuth browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "oauth-browser-" });
    const shots = await screenshotsDir(
      new URL("./screenshots", import.meta.url).pathname,
      `${dir}/screenshots`,
    );
    const port = freePort();
    const base = `http://127.0.0.1:${port}`;
    const provider = await startOidcProvider([
      `${base}/auth/oauth/oidc/callback`,
    ]);
    const server = await startMain({
      DENO_KV_PATH: `${dir}/auth.sqlite`,
      PORT: String(port),
      PUBLIC_URL: base,
      ADMIN_EMAIL: "admin@example.com",
      ADMIN_PASSWORD: "admin-password",
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CONFIDENTIAL_CLIENT.clientId,
      OIDC_CLIENT_SECRET: CONFIDENTIAL_CLIENT.clientSecret,
      OIDC_NAME: "Company SSO",
    });
    const browser = await launchChromium(executablePath);
    try {
      // The pages with the buttons, with axe, at both widths.
      const checked = await browser.newContext();
      const axePage = await checked.newPage();
      for (const width of [1280, 390]) {
        await axePage.setViewportSize({ width, height: 900 });
        await axePage.goto(`${base}/auth/login?returnTo=/profile`);
        assert.deepEqual(await runAxe(axePage), [], `login at ${width} px`);
        const scrollWidth = await axePage.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(scrollWidth <= width, `login is ${scrollWidth} px wide`);
        await axePage.screenshot({
          path: `${shots}/login-providers-${width}.png`,
          fullPage: true,
        });
      }

      // The whole flow, with JavaScript off: forms and redirects only.
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      await page.goto(`${base}/auth/login?returnTo=/profile`);
      await page.getByRole("link", { name: "Sign in with Company SSO" })
        .click();
      await page.waitForURL(`${provider.issuer}/**`);
      await page.locator('input[name="login"]').fill("alice");
      await page.locator('input[name="password"]').fill("alice-password");
      await page.getByRole("button", { name: "Sign-in" }).click();
      // The provider's consent page.
      await page.getByRole("button", { name: "Continue" }).click();
      await page.waitForURL(`${base}/profile`);
      const profile = await page.textContent("main");
      assert.match(profile ?? "", /alice@example.com/);
      await page.screenshot({ path: `${shots}/oauth-signed-in-1280.png` });
      await page.getByRole("button", { name: /log out|sign out/i }).click();

      // An unverified provider email that names the admin's account.
      const other = await (await browser.newContext({
        javaScriptEnabled: false,
      })).newPage();
      await other.goto(`${base}/auth/login`);
      await other.getByRole("link", { name: "Sign in with Company SSO" })
        .click();
      await other.waitForURL(`${provider.issuer}/**`);
      await other.locator('input[name="login"]').fill("mallory");
      await other.locator('input[name="password"]').fill("x");
      await other.getByRole("button", { name: "Sign-in" }).click();
      await other.getByRole("button", { name: "Continue" }).click();
      await other.waitForURL(`${base}/auth/oauth/oidc/callback?**`);
      const refusal = await other.textContent("main");
      assert.match(
        refusal ?? "",
        /Company SSO has not verified that admin@example.com is yours/,
      );
      await other.screenshot({ path: `${shots}/oauth-unverified-1280.png` });

      // The refusal page, through axe at both widths (JavaScript on, for axe).
      await axePage.setViewportSize({ width: 1280, height: 900 });
      await axePage.goto(`${base}/auth/login`);
      await axePage.getByRole("link", { name: "Sign in with Company SSO" })
        .click();
      await axePage.waitForURL(`${provider.issuer}/**`);
      await axePage.locator('input[name="login"]').fill("mallory");
      await axePage.locator('input[name="password"]').fill("x");
      await axePage.getByRole("button", { name: "Sign-in" }).click();
      await axePage.getByRole("button", { name: "Continue" }).click();
      await axePage.waitForURL(`${base}/auth/oauth/oidc/callback?**`);
      const refusalHtml = await axePage.content();
      for (const width of [1280, 390]) {
        await axePage.setViewportSize({ width, height: 900 });
        assert.deepEqual(await runAxe(axePage), [], `refusal at ${width} px`);
        const scrollWidth = await axePage.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(scrollWidth <= width, `refusal is ${scrollWidth} px wide`);
      }
      assert.match(refusalHtml, /role="alert"/);
      await axePage.screenshot({
        path: `${shots}/oauth-unverified-390.png`,
        fullPage: true,
      });
      // Account pre-takeover: someone registers bob@example.com with a
      // password of their own and never verifies it; Bob's verified
      // sign-in is not linked to it, and the page says what to do (axe,
      // both widths).
      const squatter = await (await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      })).newPage();
      await squatter.goto(`${base}/auth/register`);
      await squatter.fill("#name", "Not Bob");
      await squatter.fill("#email", "bob@example.com");
      await squatter.fill("#password", "squatter-password");
      await squatter.click("button[type=submit]:has-text('Create account')");
      await squatter.waitForURL(`${base}/dashboard`);
      const bobPage = await (await browser.newContext()).newPage();
      await bobPage.setViewportSize({ width: 1280, height: 900 });
      await bobPage.goto(`${base}/auth/login`);
      await bobPage.getByRole("link", { name: "Sign in with Company SSO" })
        .click();
      await bobPage.waitForURL(`${provider.issuer}/**`);
      await bobPage.locator('input[name="login"]').fill("bob");
      await bobPage.locator('input[name="password"]').fill("bob-password");
      await bobPage.getByRole("button", { name: "Sign-in" }).click();
      await bobPage.getByRole("button", { name: "Continue" }).click();
      await bobPage.waitForURL(`${base}/auth/oauth/oidc/callback?**`);
      assert.match(
        (await bobPage.textContent("main")) ?? "",
        /its address has not been verified yet/,
      );
      for (const width of [1280, 390]) {
        await bobPage.setViewportSize({ width, height: 900 });
        assert.deepEqual(
          await runAxe(bobPage),
          [],
          `not linked at ${width} px`,
        );
        const scrollWidth = await bobPage.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(
          scrollWidth <= width,
          `the refusal is ${scrollWidth} px wide`,
        );
      }
      await bobPage.screenshot({
        path: `${shots}/oauth-unverified-account-390.png`,
        fullPage: true,
      });

      console.log(`screenshots: ${shots}`);
    } finally {
      await browser.close();
      await server.stop();
      await provider.stop();
    }
  },
});
