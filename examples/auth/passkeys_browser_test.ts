// Passkeys in a real browser: Debian's chromium with its virtual WebAuthn
// authenticator (CTAP2, internal, resident keys, user verification) over
// CDP, against the real main.ts. Pages are on http://localhost: Chromium
// refuses WebAuthn on 127.0.0.1. Screenshots go to $SCREENSHOT_DIR.
import assert from "node:assert/strict";
import type { CDPSession, Page } from "playwright-core";
import { runAxe } from "../../_tools/axe.ts";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { startMain } from "./_test_server.ts";

interface VirtualCredential {
  credentialId: string;
  isResidentCredential: boolean;
  signCount: number;
  userHandle?: string;
}

async function credentials(
  cdp: CDPSession,
  authenticatorId: string,
): Promise<VirtualCredential[]> {
  const { credentials } = await cdp.send("WebAuthn.getCredentials", {
    authenticatorId,
  });
  return credentials as VirtualCredential[];
}

/** The text of the first visible `selector` once it shows. */
async function textOf(page: Page, selector: string): Promise<string> {
  const element = page.locator(selector);
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
    "passkeys in chromium: add on the profile, a second on the same authenticator refused, sign in with and without an email, replay and failed user verification refused",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the passkeys browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "auth-passkeys-" });
    const shots = Deno.env.get("SCREENSHOT_DIR") ?? `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const server = await startMain({
      DENO_KV_PATH: `${dir}/auth.sqlite`,
      ADMIN_EMAIL: "admin@example.com",
      ADMIN_PASSWORD: "admin-password",
    });
    // APP_URL defaults to http://localhost:$PORT: the passkeys' origin.
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
        if (/Content Security Policy/i.test(message.text())) {
          problems.push(message.text());
        }
      });
      const cdp = await context.newCDPSession(page);
      await cdp.send("WebAuthn.enable");
      const { authenticatorId } = await cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
          options: {
            protocol: "ctap2",
            transport: "internal",
            hasResidentKey: true,
            hasUserVerification: true,
            isUserVerified: true,
            automaticPresenceSimulation: true,
          },
        },
      );
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
      const logout = async () => {
        await page.getByRole("button", { name: "Log out" }).click();
        await page.waitForURL(`${base}/auth/login`);
      };

      // Register with a password, then add a passkey on the profile.
      await page.goto(`${base}/auth/register`);
      await page.fill("#name", "Ada Lovelace");
      await page.fill("#email", "ada@example.com");
      await page.fill("#password", "correct horse");
      await page.click("button[type=submit]");
      await page.waitForURL(`${base}/dashboard`);
      // Adding a passkey needs the password again: the button leads to
      // the confirm page, which comes back to the profile.
      await page.goto(`${base}/profile`);
      await page.getByRole("button", { name: "Add a passkey" }).click();
      await page.waitForURL(/\/auth\/confirm\?returnTo=%2Fprofile$/);
      await page.fill("#password", "correct horse");
      await page.getByRole("button", { name: "Confirm" }).click();
      await page.waitForURL(`${base}/profile`);
      assert.match(await textOf(page, "#passkeys-heading"), /Passkeys/);
      await page.fill("#passkey-new-name", "Laptop");
      await page.getByRole("button", { name: "Add a passkey" }).click();
      assert.match(
        await textOf(page, ".flash.notice"),
        /Passkey “Laptop” added\./,
      );
      assert.match(await textOf(page, ".passkeys"), /Laptop/);
      const [made] = await credentials(cdp, authenticatorId);
      assert.equal(made.isResidentCredential, true);
      await shot("profile-passkeys");

      // The same authenticator again: excludeCredentials names it.
      await page.getByRole("button", { name: "Add a passkey" }).click();
      assert.match(
        await textOf(page, "#passkey-add-error"),
        /already holds a passkey for your account/,
      );
      assert.equal((await credentials(cdp, authenticatorId)).length, 1);
      assert.equal(await page.locator(".passkey-item").count(), 1);

      // Sign in without an email (a discoverable credential).
      await logout();
      let loginBody = "";
      page.on("request", (request) => {
        if (request.url().endsWith("/passkeys/login")) {
          loginBody = request.postData() ?? "";
        }
      });
      const counted = (await credentials(cdp, authenticatorId))[0].signCount;
      await page.goto(`${base}/auth/login`);
      assert.equal(await page.inputValue("#email"), "");
      await shot("login-passkey");
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      await page.waitForURL(`${base}/dashboard`);
      assert.match(await textOf(page, "main"), /ada@example\.com/);
      assert.equal(
        (await credentials(cdp, authenticatorId))[0].signCount,
        counted + 1,
      );

      // The same assertion again, from a new guest session: refused, with
      // and without a fresh challenge in the session.
      await logout();
      const replay = (freshChallenge: boolean) =>
        page.evaluate<{ status: number; text: string }, [string, boolean]>(
          async ([body, fresh]) => {
            const json = {
              "content-type": "application/json",
              accept: "application/json",
            };
            if (fresh) {
              await fetch("/passkeys/login/options", {
                method: "POST",
                headers: json,
                body: "{}",
              });
            }
            const response = await fetch("/passkeys/login", {
              method: "POST",
              headers: json,
              body,
            });
            return { status: response.status, text: await response.text() };
          },
          [loginBody, freshChallenge],
        );
      assert.ok(loginBody.includes("authenticatorData"), loginBody);
      const stale = await replay(false);
      assert.equal(stale.status, 400);
      assert.match(stale.text, /no authentication challenge in this session/);
      const rechallenged = await replay(true);
      assert.equal(rechallenged.status, 400);
      assert.match(rechallenged.text, /challenge/i);
      await page.goto(`${base}/dashboard`);
      assert.match(page.url(), /\/auth\/login/, "the replay signed nobody in");

      // With the email typed: the passkey must be that account's.
      await page.goto(`${base}/auth/login`);
      await page.fill("#email", "admin@example.com");
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      assert.match(
        await textOf(page, "#passkey-login-error"),
        /belongs to another account/,
      );
      await page.fill("#email", "ada@example.com");
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      await page.waitForURL(`${base}/dashboard`);
      assert.equal(
        (await credentials(cdp, authenticatorId))[0].signCount,
        counted + 3,
      );

      // User verification fails: the browser refuses under "required"...
      await logout();
      await cdp.send("WebAuthn.setUserVerified", {
        authenticatorId,
        isUserVerified: false,
      });
      await page.goto(`${base}/auth/login`);
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      const refusedInBrowser = await textOf(page, "#passkey-login-error");
      assert.match(refusedInBrowser, /cancelled or timed out/);
      // ...and a client that changes the options to "discouraged" gets an
      // assertion without user verification, which the server refuses.
      await page.route("**/passkeys/login/options", async (route) => {
        const response = await route.fetch();
        const options = await response.json();
        await route.fulfill({
          response,
          json: { ...options, userVerification: "discouraged" },
        });
      });
      await page.goto(`${base}/auth/login`);
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      assert.match(
        await textOf(page, "#passkey-login-error"),
        /user verification/i,
      );
      await page.goto(`${base}/dashboard`);
      assert.match(page.url(), /\/auth\/login/);
      await page.unroute("**/passkeys/login/options");
      await cdp.send("WebAuthn.setUserVerified", {
        authenticatorId,
        isUserVerified: true,
      });

      // Rename and remove work as plain forms.
      await page.goto(`${base}/auth/login`);
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      await page.waitForURL(`${base}/dashboard`);
      await page.goto(`${base}/profile`);
      await page.fill("#passkey-name-0", "Work laptop");
      await page.getByRole("button", { name: "Rename" }).click();
      assert.match(await textOf(page, ".flash.notice"), /Work laptop/);
      await page.getByRole("button", { name: "Remove Work laptop" }).click();
      assert.match(await textOf(page, ".flash.notice"), /Passkey removed\./);
      assert.equal(await page.locator(".passkey-item").count(), 0);
      await logout();
      await page.getByRole("button", { name: "Sign in with a passkey" })
        .click();
      assert.match(
        await textOf(page, "#passkey-login-error"),
        /unknown passkey/,
      );
      assert.deepEqual(problems, []);
      console.log(`screenshots: ${shots}`);
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
