// "Confirm with <provider>" in headless chromium, against the real
// main.ts and panva's oidc-provider on 127.0.0.1, with JavaScript off:
// the confirm page's button (a form posting to the app) reaches the
// provider's login page through the page's Content-Security-Policy
// (form-action 'self'), and the user comes back confirmed; the refusal
// for another provider account. axe on the confirm page, the page on to
// the provider and the refusal, at 1280 and 390 px. Screenshots go to a
// temp folder (printed), or with SAVE_SCREENSHOTS=1 to
// examples/auth/screenshots/.
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { runAxe, screenshotsDir } from "../../_tools/axe.ts";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { freePort } from "../../_tools/redis.ts";
import { startMain } from "./_test_server.ts";
import {
  CONFIDENTIAL_CLIENT,
  startOidcProvider,
} from "../../oauth/_test_oidc_provider.ts";

/** axe clean, no sideways scrolling, and a screenshot, at both widths. */
async function checkPage(page: Page, name: string, shots: string) {
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    assert.deepEqual(await runAxe(page), [], `${name} at ${width} px`);
    const scrollWidth = await page.evaluate<number>(
      "document.documentElement.scrollWidth",
    );
    assert.ok(scrollWidth <= width, `${name} is ${scrollWidth} px wide`);
    await page.screenshot({
      path: `${shots}/${name}-${width}.png`,
      fullPage: true,
    });
  }
}

/**
 * Signs in at the provider's own pages as `login`, through its consent
 * page when it shows one, until the browser is back on `base`.
 */
async function providerLogin(
  page: Page,
  issuer: string,
  base: string,
  login: string,
) {
  await page.waitForURL(`${issuer}/**`);
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill(`${login}-password`);
  await page.getByRole("button", { name: "Sign-in" }).click();
  const consent = page.getByRole("button", { name: "Continue" });
  const back = page.waitForURL(`${base}/**`);
  if (
    await Promise.race([
      back.then(() => false),
      consent.waitFor().then(() => true),
    ])
  ) {
    await consent.click();
  }
  await back;
}

Deno.test({
  name:
    "confirm with provider browser: the button reaches the provider's login (no JavaScript) and comes back confirmed; another account is refused; axe clean at 1280 and 390 px",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip(
      "the confirm-with-provider browser test",
    );
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "confirm-provider-" });
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
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CONFIDENTIAL_CLIENT.clientId,
      OIDC_CLIENT_SECRET: CONFIDENTIAL_CLIENT.clientSecret,
      OIDC_NAME: "Company SSO",
    });
    const browser = await launchChromium(executablePath);
    try {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      await page.goto(`${base}/auth/login`);
      await page.getByRole("link", { name: "Sign in with Company SSO" })
        .click();
      await providerLogin(page, provider.issuer, base, "alice");
      await page.waitForURL(`${base}/dashboard`);

      // A guarded page sends to the confirm page, which offers the provider.
      await page.goto(`${base}/profile/two-factor`);
      await page.waitForURL(`${base}/auth/confirm?**`);
      const button = page.getByRole("button", {
        name: "Confirm with Company SSO",
      });
      assert.equal(await button.count(), 1);
      await button.click();
      // Through the page on to the provider: its login page, again.
      await providerLogin(page, provider.issuer, base, "alice");
      await page.waitForURL(`${base}/profile/two-factor`);
      assert.match(
        (await page.textContent("main")) ?? "",
        /authenticator app/i,
      );

      // With JavaScript on, for axe: the confirm page, the page on to
      // the provider (its Refresh stopped by not following it), and the
      // refusal for another account.
      const checked = await browser.newContext({
        viewport: { width: 1280, height: 900 },
      });
      const axePage = await checked.newPage();
      await axePage.goto(`${base}/auth/login`);
      await axePage.getByRole("link", { name: "Sign in with Company SSO" })
        .click();
      await providerLogin(axePage, provider.issuer, base, "alice");
      await axePage.waitForURL(`${base}/dashboard`);
      await axePage.goto(
        `${base}/auth/confirm?returnTo=%2Fprofile%2Ftwo-factor`,
      );
      await checkPage(axePage, "confirm-provider", shots);

      await axePage.setViewportSize({ width: 1280, height: 900 });
      // Signed out of alice at the provider: bob signs in there instead.
      await checked.clearCookies({ name: /^_session/ });
      // The page on to the provider, held still for axe (its Refresh
      // header dropped), then its link followed.
      await axePage.route(`${base}/auth/confirm/provider/**`, async (route) => {
        const response = await route.fetch();
        const headers = response.headers();
        delete headers["refresh"];
        await route.fulfill({ response, headers });
      });
      await axePage.getByRole("button", { name: "Confirm with Company SSO" })
        .click();
      await axePage.waitForURL(`${base}/auth/confirm/provider/oidc?**`);
      await checkPage(axePage, "confirm-provider-continue", shots);
      await axePage.unrouteAll();
      await axePage.setViewportSize({ width: 1280, height: 900 });
      await axePage.getByRole("link", { name: "Continue to Company SSO" })
        .click();
      await providerLogin(axePage, provider.issuer, base, "bob");
      await axePage.waitForURL(`${base}/auth/oauth/oidc/callback?**`);
      assert.match(
        (await axePage.textContent("main")) ?? "",
        /not the Company SSO account linked to alice@example.com/,
      );
      await checkPage(axePage, "confirm-provider-refused", shots);
      console.log(`screenshots: ${shots}`);
    } finally {
      await browser.close();
      await server.stop();
      await provider.stop();
    }
  },
});
