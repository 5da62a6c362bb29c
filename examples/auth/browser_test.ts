// The app in a real browser: Debian's chromium, driven by playwright-core,
// against the real main.ts, at 1280 px and, for the pages that matter on a
// phone, 390 px. Screenshots of every page go to $SCREENSHOT_DIR (default:
// a temp folder, printed).
import assert from "node:assert/strict";
import { launchChromium } from "../../_tools/browser.ts";
import { startMain } from "./_test_server.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";

Deno.test({
  name:
    "browser: register, logout, failed login, returnTo, admin role change, 403, 405, 390 px, form errors, no CSP violation",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the auth browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "auth-browser-" });
    const shots = Deno.env.get("SCREENSHOT_DIR") ?? `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const server = await startMain({
      DENO_KV_PATH: `${dir}/auth.sqlite`,
      ADMIN_EMAIL: "admin@example.com",
      ADMIN_PASSWORD: "admin-password",
    });
    const browser = await launchChromium(executablePath);
    try {
      const context = await browser.newContext({
        viewport: { width: 1280, height: 720 },
      });
      // Every CSP violation on every page: the event, reported to the
      // console (an init script is the browser's, not the page's, so the
      // policy does not block it), and Chrome's own console error.
      await context.addInitScript(`document.addEventListener(
        "securitypolicyviolation",
        (e) => console.error("CSP violation: " + e.violatedDirective + " " + e.blockedURI + " on " + location.pathname),
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
      const shot = (name: string) =>
        page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
      /**
       * Opens `path` at 390 px (a phone): nothing wider than the screen,
       * the header in at most two rows; then back to 1280 px.
       */
      const narrow = async (path: string, name: string) => {
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(base + path);
        // Run in the page (a string: this file has no DOM types).
        const width = await page.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(width <= 390, `${path} is ${width} px wide at 390`);
        const rows = await page.evaluate<number>(
          `new Set([...document.querySelectorAll("header > *")]
            .map((e) => Math.round(e.getBoundingClientRect().top))).size`,
        );
        assert.ok(rows <= 2, `${path}: the header takes ${rows} rows`);
        await shot(`${name}-390`);
        await page.setViewportSize({ width: 1280, height: 720 });
      };
      /** The page as it is (a POST's answer), at 1280 and at 390 px. */
      const shotBoth = async (name: string) => {
        await shot(name);
        await page.setViewportSize({ width: 390, height: 844 });
        const width = await page.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(width <= 390, `${name} is ${width} px wide at 390`);
        await shot(`${name}-390`);
        await page.setViewportSize({ width: 1280, height: 720 });
      };
      /** Lets the browser send what its own checks would stop. */
      const skipBrowserChecks = () =>
        page.evaluate(
          `for (const form of document.forms) form.noValidate = true;
          for (const input of document.querySelectorAll("input")) input.removeAttribute("maxlength");`,
        );
      const base = server.url;
      const submitLogin = async (email: string, password: string) => {
        await page.fill("#email", email);
        await page.fill("#password", password);
        await page.click("button:has-text('Log in')");
      };

      await page.goto(base + "/");
      assert.equal(await page.locator("h1").textContent(), "Welcome");
      await shot("01-home");
      await narrow("/", "01-home");
      await narrow("/auth/register", "02-register");

      // Register: first with problems, each shown beside its field.
      await page.click("text=Register");
      await shot("02-register");
      await skipBrowserChecks();
      await page.fill("#name", "Ada Lovelace");
      await page.fill("#email", "ada@example");
      await page.fill("#password", "short");
      await page.click("button[type=submit]:has-text('Create account')");
      await page.waitForLoadState();
      assert.equal(
        (await page.locator("#email-error").textContent())?.trim(),
        "Please enter a valid email address.",
      );
      assert.equal(
        (await page.locator("#password-error").textContent())?.trim(),
        "Your password must be at least 8 characters.",
      );
      assert.equal(await page.locator("#name-error").count(), 0);
      assert.equal(await page.inputValue("#name"), "Ada Lovelace");
      assert.equal(await page.inputValue("#email"), "ada@example");
      assert.equal(await page.inputValue("#password"), "", "never refilled");
      assert.equal(
        await page.getAttribute("#email", "aria-describedby"),
        "email-error",
      );
      await shotBoth("02b-register-errors");
      await page.fill("#name", "Ada Lovelace");
      await page.fill("#email", "ada@example.com");
      await page.fill("#password", "correct horse");
      await page.click("button[type=submit]:has-text('Create account')");
      await page.waitForURL(base + "/dashboard");
      assert.match(
        await page.locator("main").textContent() ?? "",
        /Ada Lovelace/,
      );
      assert.equal(
        (await page.locator(".flash.notice").textContent())?.trim(),
        "Welcome, Ada Lovelace!",
      );
      assert.match(
        await page.locator("header").textContent() ?? "",
        /Signed in as\s+Ada Lovelace/,
      );
      assert.equal(
        await page.locator('nav [aria-current="page"]').textContent(),
        "Dashboard",
      );
      await shot("03-dashboard");
      await page.click("text=Profile");
      assert.match(
        await page.locator("main").textContent() ?? "",
        /ada@example\.com/,
      );
      await shot("04-profile");

      // Logout is a POST button; GET answers a page that says so.
      const get = await page.goto(base + "/auth/logout");
      assert.equal(get?.status(), 405);
      assert.equal(
        await page.locator("h1").textContent(),
        "Method not allowed",
      );
      await shot("04b-method-not-allowed");
      await narrow("/auth/logout", "04b-method-not-allowed");
      await page.goto(base + "/profile");
      await page.click("button:has-text('Log out')");
      await page.waitForURL(base + "/auth/login");
      assert.equal(
        (await page.locator(".flash.notice").textContent())?.trim(),
        "You have been signed out.",
      );
      await shot("04c-signed-out");

      // A failed login shows the flash once.
      await submitLogin("ada@example.com", "wrong password");
      await page.waitForURL(base + "/auth/login");
      assert.equal(
        (await page.locator(".flash.error").textContent())?.trim(),
        "Invalid email or password",
      );
      assert.equal(await page.inputValue("#email"), "ada@example.com");
      await shot("05-login-failed");
      await page.reload();
      assert.equal(await page.locator(".flash.error").count(), 0);

      // An email no account can have: the problem beside the field.
      await skipBrowserChecks();
      await submitLogin("a".repeat(260) + "@example.com", "whatever");
      await page.waitForLoadState();
      assert.equal(
        (await page.locator("#email-error").textContent())?.trim(),
        "An email address has at most 254 characters.",
      );
      assert.equal((await page.inputValue("#email")).length, 254);
      assert.equal(await page.inputValue("#password"), "");
      await shotBoth("05b-login-errors");

      // A guarded page sends to login, which comes back after.
      await page.goto(base + "/profile");
      assert.equal(page.url(), base + "/auth/login?returnTo=%2Fprofile");
      await shot("06-login");
      await submitLogin("ada@example.com", "correct horse");
      await page.waitForURL(base + "/profile");

      // A user is not an admin: 403.
      const forbidden = await page.goto(base + "/admin/users");
      assert.equal(forbidden?.status(), 403);
      assert.equal(await page.locator("h1").textContent(), "Forbidden");
      await shot("07-forbidden");
      await page.goto(base + "/nowhere");
      assert.equal(await page.locator("h1").textContent(), "Page not found");
      await shot("08-not-found");
      await page.goto(base + "/dashboard");
      await page.click("button:has-text('Log out')");
      await page.waitForURL(base + "/auth/login");

      // The admin makes Ada a moderator through the PUT form.
      await submitLogin("admin@example.com", "admin-password");
      await page.waitForURL(base + "/dashboard");
      await page.click("nav >> text=Users");
      const row = page.locator("tr", { hasText: "ada@example.com" });
      await row.locator("select").selectOption("moderator");
      await row.locator("button:has-text('Save')").click();
      await page.waitForURL(base + "/admin/users");
      assert.match(
        await page.locator(".flash.notice").textContent() ?? "",
        /ada@example\.com is now moderator/,
      );
      await shot("09-admin-users");
      await narrow("/admin/users", "09-admin-users");
      await narrow("/dashboard", "03-dashboard-admin");
      await page.goto(base + "/admin/users");
      await page.click("nav >> text=Settings");
      assert.match(
        await page.locator("main").textContent() ?? "",
        /You are an admin\./,
      );
      await shot("10-admin-settings");
      await page.click("button:has-text('Log out')");

      // Ada, now a moderator, reaches the settings but not the user list.
      await page.goto(base + "/auth/login");
      await submitLogin("ada@example.com", "correct horse");
      await page.waitForURL(base + "/dashboard");
      assert.equal((await page.goto(base + "/admin/settings"))?.status(), 200);
      assert.equal((await page.goto(base + "/admin/users"))?.status(), 403);
      await page.goto(base + "/dashboard");
      await page.click("button:has-text('Log out')");

      // Five wrong passwords, then the limiter's page.
      for (let i = 0; i < 6; i++) {
        await submitLogin("ada@example.com", "wrong password");
        await page.waitForLoadState();
      }
      // Five, then none until 15 minutes after the fifth.
      assert.match(
        await page.locator(".flash.error").textContent() ?? "",
        /Too many login attempts\. Try again in 15 minutes\./,
      );
      assert.equal(await page.inputValue("#email"), "ada@example.com");
      await shotBoth("11-too-many-attempts");

      // No page broke the Content-Security-Policy; and a violation would
      // be seen: an inline style without the nonce is refused and reported.
      assert.deepEqual(violations, []);
      await page.evaluate(
        `document.head.insertAdjacentHTML("beforeend", "<style>body { color: red }</style>")`,
      );
      await page.waitForTimeout(200);
      assert.equal(
        violations.length >= 1,
        true,
        "the listener sees violations",
      );
      assert.match(violations.join("\n"), /style-src/);
      console.log(`screenshots: ${shots}`);
      // The server logged every request, with the client address and the
      // request id, and no password.
      assert.match(
        server.output(),
        /127\.0\.0\.1 [0-9a-f-]{36} POST \/auth\/login 429/,
      );
      for (const secret of ["correct horse", "admin-password"]) {
        assert.ok(!server.output().includes(secret), "a password in the log");
      }
      await context.close();
    } finally {
      await browser.close();
      await server.stop();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
