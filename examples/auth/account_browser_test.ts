// The account pages in Chromium, JavaScript off, against the real main.ts:
// the profile's email, devices and delete sections, the email change form,
// the pages a mailed link can land on, and the delete page; axe-core finds
// nothing and no page is wider than the screen, at 1280 and 390 px.
// Screenshots go to a temp folder, or with SAVE_SCREENSHOTS=1 to
// examples/auth/screenshots/.
import assert from "node:assert/strict";
import { runAxe, screenshotsDir } from "../../_tools/axe.ts";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { startMain } from "./_test_server.ts";

const IPHONE =
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

Deno.test({
  name:
    "account browser: email verification, email change, devices and account deletion pages, no JavaScript, axe clean at 1280 and 390 px",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the account browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "auth-account-" });
    const shots = await screenshotsDir(
      new URL("./screenshots", import.meta.url).pathname,
      `${dir}/screenshots`,
    );
    const server = await startMain({ DENO_KV_PATH: `${dir}/auth.sqlite` });
    const base = server.url.replace("127.0.0.1", "localhost");
    const browser = await launchChromium(executablePath);
    /** The links printed by the console mailer, newest last. */
    const links = () =>
      [...server.output().matchAll(/https?:\/\/\S+\/email\/verify\/[\w-]{43}/g)]
        .map((m) => new URL(m[0]).pathname);
    const waitForLinks = async (n: number) => {
      for (let i = 0; i < 500 && links().length < n; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.ok(links().length >= n, `link ${n} never printed`);
      return links();
    };
    try {
      const context = await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      });
      const page = await context.newPage();
      // axe needs a script: a second page with JavaScript on reads the
      // same pages with the same cookie.
      const axeContext = await browser.newContext({
        viewport: { width: 1280, height: 900 },
      });
      const axePage = await axeContext.newPage();
      /** The page as it is: nothing wider than the screen; screenshots. */
      const check = async (name: string) => {
        for (const width of [1280, 390]) {
          await page.setViewportSize({ width, height: 900 });
          const scrollWidth = await page.evaluate<number>(
            "document.documentElement.scrollWidth",
          );
          assert.ok(scrollWidth <= width, `${name} is ${scrollWidth} px wide`);
          await page.screenshot({
            path: `${shots}/${name}-${width}.png`,
            fullPage: true,
          });
        }
        await page.setViewportSize({ width: 1280, height: 900 });
      };
      /** axe-core on a GET page, with this browser's cookies, both widths. */
      const axeAt = async (path: string, name: string) => {
        await axeContext.clearCookies();
        await axeContext.addCookies(await context.cookies());
        const response = await axePage.goto(base + path);
        for (const width of [1280, 390]) {
          await axePage.setViewportSize({ width, height: 900 });
          assert.deepEqual(await runAxe(axePage), [], `${name} at ${width}`);
        }
        return response;
      };

      // Register: the profile says "not verified", with "Send again".
      await page.goto(`${base}/auth/register`);
      await page.fill("#name", "Ada Lovelace");
      await page.fill("#email", "ada@example.com");
      await page.fill("#password", "ada password");
      await page.click("button[type=submit]:has-text('Create account')");
      await page.waitForURL(`${base}/dashboard`);
      assert.match(
        (await page.textContent("main")) ?? "",
        /We sent a link to ada@example\.com: open it within 24 hours/,
      );
      // A second device, a phone.
      const phone = await (await browser.newContext({
        javaScriptEnabled: false,
        userAgent: IPHONE,
        viewport: { width: 390, height: 844 },
      })).newPage();
      await phone.goto(`${base}/auth/login`);
      await phone.fill("#email", "ada@example.com");
      await phone.fill("#password", "ada password");
      await phone.click("form.card button[type=submit]");
      await phone.waitForURL(`${base}/dashboard`);

      await page.goto(`${base}/profile`);
      const profile = (await page.textContent("main")) ?? "";
      assert.match(profile, /not verified/);
      await check("profile-unverified");
      await axeAt("/profile", "profile");
      // The devices, on the security page.
      await page.goto(`${base}/profile/security`);
      const security = (await page.textContent("main")) ?? "";
      assert.match(security, /Safari 17 on iOS/);
      assert.match(security, /this device/);
      await check("security-devices");
      await axeAt("/profile/security", "security");

      // "Send again": a second link; the first one now says it expired.
      await page.goto(`${base}/profile`);
      await page.click("button:has-text('Send again')");
      await page.waitForURL(`${base}/profile`);
      const [first, second] = await waitForLinks(2);
      await page.goto(base + first);
      assert.match(
        (await page.textContent("main")) ?? "",
        /does not work any more/,
      );
      await check("email-link-expired");
      await axeAt(first, "link expired");
      await page.goto(base + second);
      await page.waitForURL(`${base}/profile`);
      assert.match((await page.textContent("main")) ?? "", /is verified/);
      await check("profile-verified");

      // The email change form, after the password again, and its refusal.
      await page.goto(`${base}/email/change`);
      await page.waitForURL(`${base}/auth/confirm?**`);
      await page.fill("#password", "ada password");
      await page.click("form.card button[type=submit]");
      await page.waitForURL(`${base}/email/change`);
      await check("email-change");
      await axeAt("/email/change", "email change");
      await page.fill("#email", "ADA@example.com");
      await page.click("form.card button[type=submit]");
      assert.match(
        (await page.textContent("main")) ?? "",
        /That is your address already/,
      );
      await check("email-change-422");
      await page.fill("#email", "ada@new.example");
      await page.click("form.card button[type=submit]");
      await page.waitForURL(`${base}/profile`);
      const [change] = (await waitForLinks(3)).slice(2);
      // Opened by someone else signed in: nothing changes.
      const eve = await (await browser.newContext({
        javaScriptEnabled: false,
        viewport: { width: 1280, height: 900 },
      })).newPage();
      await eve.goto(`${base}/auth/register`);
      await eve.fill("#name", "Eve");
      await eve.fill("#email", "eve@example.com");
      await eve.fill("#password", "eve password");
      await eve.click("button[type=submit]:has-text('Create account')");
      await eve.waitForURL(`${base}/dashboard`);
      await eve.goto(base + change);
      assert.match(
        (await eve.textContent("main")) ?? "",
        /belongs to another account/,
      );
      for (const width of [1280, 390]) {
        await eve.setViewportSize({ width, height: 900 });
        await eve.screenshot({
          path: `${shots}/email-link-other-account-${width}.png`,
          fullPage: true,
        });
      }
      await page.goto(base + change);
      await page.waitForURL(`${base}/profile`);
      assert.match(
        (await page.textContent("main")) ?? "",
        /Your email address is now ada@new.example/,
      );

      // Sign the phone out from the security page.
      await page.goto(`${base}/profile/security`);
      await page.click("form.device-remove button");
      await page.waitForURL(`${base}/profile/security#devices`);
      assert.match(
        (await page.textContent("main")) ?? "",
        /That device is signed out/,
      );
      await check("security-device-signed-out");
      await phone.goto(`${base}/dashboard`);
      assert.match(phone.url(), /\/auth\/login/);

      // A new password (still confirmed): the other devices are signed out.
      await page.goto(`${base}/profile/password`);
      await check("change-password");
      await axeAt("/profile/password", "change password");
      await page.fill("#password", "ada new password");
      await page.click("form.card button[type=submit]");
      await page.waitForURL(`${base}/profile/security`);
      assert.match(
        (await page.textContent("main")) ?? "",
        /every other device was signed out/,
      );

      // Delete: after the (new) password again, the page, a wrong email,
      // then the account.
      await page.goto(`${base}/profile/delete`);
      await page.waitForURL(`${base}/auth/confirm?**`);
      await page.fill("#password", "ada new password");
      await page.click("form.card button[type=submit]");
      await page.waitForURL(`${base}/profile/delete`);
      await check("delete-account");
      await axeAt("/profile/delete", "delete account");
      await page.fill("#email", "someone@else.example");
      await page.click("button.danger");
      assert.match(
        (await page.textContent("main")) ?? "",
        /Type ada@new.example/,
      );
      await check("delete-account-422");
      await page.fill("#email", "ada@new.example");
      await page.click("button.danger");
      await page.waitForURL(`${base}/auth/login`);
      assert.match((await page.textContent("main")) ?? "", /has been deleted/);
      await check("account-deleted");
      console.log(`screenshots: ${shots}`);
    } finally {
      await browser.close();
      await server.stop();
    }
  },
});
