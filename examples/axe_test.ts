// Every page of every example with an HTML face (auth, resources, uploads,
// live, multi_server; api answers JSON only), error pages included, checked
// by axe-core in Debian's chromium at 1280 and 390 px: 0 violations, and
// nothing wider than a 390 px phone screen. One browser for all of it.
//
// Screenshots of each page at each width go to a temp folder (printed), or,
// with SAVE_SCREENSHOTS=1, to examples/<name>/screenshots/<page>-<width>.png.
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import type { Browser, Page } from "playwright-core";
import { runAxe, screenshotsDir } from "../_tools/axe.ts";
import { launchChromium } from "../_tools/browser.ts";
import { chromiumOrSkip } from "../_tools/chromium.ts";
import { startCommand } from "../_tools/doc_run.ts";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { startMain } from "./auth/_test_server.ts";
import { createApp as createResourcesApp } from "./resources/app.ts";
import { createUploadsApp } from "./uploads/app.ts";
import { createLiveApp } from "./live/app.ts";
import { createMemoryPubSub } from "@fetchkit/toolkit/pubsub";
import { serve, type ServeHandler } from "@fetchkit/toolkit/serve";
import { totpCode } from "@fetchkit/toolkit/totp";

const WIDTHS = [1280, 390] as const;
/** EXAMPLES=live,uploads checks only those (while fixing one). */
const ONLY = Deno.env.get("EXAMPLES")?.split(",");
const wanted = (name: string) => ONLY === undefined || ONLY.includes(name);
const REPO = new URL("../", import.meta.url).pathname;

/** One page as checked: its axe violations and how wide it drew. */
interface Finding {
  example: string;
  page: string;
  width: number;
  violations: string[];
  scrollWidth: number;
}

/** A page to check: how to reach it from the previous step, in one tab. */
interface Step {
  name: string;
  go(page: Page, width: number): Promise<void>;
  /** More checks on the page as reached (at both widths). */
  check?(page: Page, width: number): Promise<void>;
}

/** Runs axe in the page; one line per violation, with where it was. */

function shotsDir(example: string, temp: string): Promise<string> {
  return screenshotsDir(
    `${REPO}examples/${example}/screenshots`,
    `${temp}/${example}`,
  );
}

/** Walks `steps` at each width in a fresh browser context, auditing each. */
async function audit(
  browser: Browser,
  example: string,
  /** The app's origin; a function gives each width a fresh app. */
  base: string | (() => string),
  steps: Step[],
  temp: string,
): Promise<Finding[]> {
  const findings: Finding[] = [];
  const dir = await shotsDir(example, temp);
  for (const width of WIDTHS) {
    const context = await browser.newContext({
      viewport: { width, height: width < 500 ? 844 : 720 },
      baseURL: typeof base === "string" ? base : base(),
    });
    context.setDefaultTimeout(10_000);
    const page = await context.newPage();
    // A page's own parts (its favicon, stylesheet, scripts) must all load:
    // a 404 there is a console error a visitor sees in devtools.
    const broken: string[] = [];
    page.on("response", (response) => {
      if (
        response.status() >= 400 &&
        response.request().resourceType() !== "document"
      ) {
        broken.push(`${response.status()} ${new URL(response.url()).pathname}`);
      }
    });
    try {
      for (const step of steps) {
        try {
          await step.go(page, width);
          await page.waitForLoadState();
        } catch (error) {
          // The page could not be reached as a user would: report it, and
          // skip this width's later steps (they build on this one).
          findings.push({
            example,
            page: step.name,
            width,
            violations: [`not reached: ${(error as Error).message}`],
            scrollWidth: 0,
          });
          break;
        }
        const problems: string[] = [];
        problems.push(...broken.splice(0).map((what) => `failed: ${what}`));
        // Headless Chromium asks for no favicon, so each page must name one
        // that loads (without it, desktop browsers ask for /favicon.ico and
        // log its 404 in the console).
        const icon = await page.evaluate<string | null>(
          "document.querySelector('link[rel~=icon]')?.href ?? null",
        );
        if (icon === null) {
          problems.push("no <link rel=icon>: browsers log a /favicon.ico 404");
        } else if (!icon.startsWith("data:")) {
          const status = (await context.request.get(icon)).status();
          if (status >= 400) problems.push(`favicon ${icon}: ${status}`);
        }
        try {
          await step.check?.(page, width);
          await withinMain(page);
          if (width < 500) await sideMargins(page, width);
        } catch (error) {
          problems.push(`check: ${(error as Error).message}`);
        }
        findings.push({
          example,
          page: step.name,
          width,
          violations: [...problems, ...await runAxe(page)],
          scrollWidth: await page.evaluate<number>(
            "document.documentElement.scrollWidth",
          ),
        });
        await page.screenshot({
          path: `${dir}/${step.name}-${width}.png`,
          fullPage: true,
        });
      }
    } finally {
      await context.close();
    }
  }
  return findings;
}

/**
 * On a phone, the content keeps a margin from both edges of the screen:
 * every visible box in `<main>` starts at least 12 px from each side.
 */
async function sideMargins(page: Page, width: number): Promise<void> {
  const [left, right] = await page.evaluate<[number, number]>(`(() => {
    const boxes = [...document.querySelectorAll("main *")]
      .map((e) => e.getBoundingClientRect())
      .filter((r) => r.width > 1 && r.height > 1);
    return [
      Math.min(...boxes.map((r) => r.left)),
      Math.max(...boxes.map((r) => r.right)),
    ];
  })()`);
  assert.ok(
    left >= 12 && right <= width - 12,
    `content reaches ${Math.round(left)} to ${
      Math.round(right)
    } px of ${width}`,
  );
}

/** Nothing in `<main>` sticks out of it (a table too wide, say). */
async function withinMain(page: Page): Promise<void> {
  const outside = await page.evaluate<string[]>(`(() => {
    const main = document.querySelector("main").getBoundingClientRect();
    return [...document.querySelectorAll("main *")]
      .filter((e) => {
        const r = e.getBoundingClientRect();
        return r.width > 1 && r.height > 1 &&
          (r.left < main.left - 1 || r.right > main.right + 1);
      })
      .slice(0, 3)
      .map((e) => e.tagName.toLowerCase() + (e.className ? "." + e.className : ""));
  })()`);
  assert.deepEqual(
    outside,
    [],
    `sticking out of <main>: ${outside.join(", ")}`,
  );
}

/** Submits the form holding `button`, waiting for the answer's page. */
async function submit(page: Page, button: string): Promise<void> {
  await Promise.all([
    page.waitForNavigation(),
    page.click(button),
  ]);
}

/** Lets the browser send what its own checks would stop. */
function skipBrowserChecks(page: Page): Promise<void> {
  return page.evaluate(
    `for (const form of document.forms) form.noValidate = true;
    for (const input of document.querySelectorAll("input")) input.removeAttribute("maxlength");`,
  );
}

/** "Log out" sits on one line: its box is no taller than one line of text. */
async function logOutOnOneLine(page: Page): Promise<void> {
  const lines = await page.evaluate<number>(`(() => {
    const button = [...document.querySelectorAll("button")]
      .find((b) => b.textContent.trim() === "Log out");
    const style = getComputedStyle(button);
    return Math.round(button.getBoundingClientRect().height /
      parseFloat(style.lineHeight === "normal" ? "20" : style.lineHeight));
  })()`);
  assert.ok(lines <= 1, `"Log out" wraps onto ${lines} lines`);
}

/**
 * The reset link the auth app printed (its console mailer) for `email`,
 * as a path; waits up to 5 s for the mail, sent after the answer.
 */
async function resetLinkFor(
  output: () => string,
  email: string,
): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const mail = output().split("Mail to ").filter((m) => m.startsWith(email))
      .pop();
    const link = mail?.match(/\/password\/reset\/[\w-]{43}/)?.[0];
    if (link) return link;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no reset mail for ${email}`);
}

function authSteps(output: () => string = () => ""): Step[] {
  const name = "Bartholomew Fitzgerald-Featherstonehaugh";
  const email = (width: number) =>
    `bartholomew.fitzgerald.${width}@example.com`;
  return [
    { name: "home", go: async (page) => void await page.goto("/") },
    {
      name: "register",
      go: async (page) => void await page.goto("/auth/register"),
    },
    {
      name: "register-422",
      go: async (page) => {
        await skipBrowserChecks(page);
        await page.fill("#name", name);
        await page.fill("#email", "bartholomew@example");
        await page.fill("#password", "short");
        await submit(page, "button[type=submit]");
      },
      check: async (page) => {
        // After a 422 the focus is on the first invalid field (autofocus).
        assert.equal(await page.evaluate("document.activeElement.id"), "email");
      },
    },
    {
      name: "register-413",
      go: async (page) => {
        await skipBrowserChecks(page);
        await page.fill("#name", "x".repeat(5000));
        await submit(page, "button[type=submit]");
      },
    },
    {
      name: "dashboard",
      go: async (page, width) => {
        await page.goto("/auth/register");
        await page.fill("#name", name);
        await page.fill("#email", email(width));
        await page.fill("#password", "a-long-password");
        await submit(page, "button[type=submit]");
      },
    },
    {
      name: "profile",
      go: async (page) => void await page.goto("/profile"),
      check: logOutOnOneLine,
    },
    ...twoFactorSteps(email),
    { name: "403", go: async (page) => void await page.goto("/admin/users") },
    { name: "404", go: async (page) => void await page.goto("/no-such-page") },
    { name: "405", go: async (page) => void await page.goto("/auth/logout") },
    {
      name: "login-signed-out",
      go: async (page) => {
        await page.goto("/profile");
        await submit(page, "button:has-text('Log out')");
      },
    },
    {
      name: "login-failed",
      go: async (page, width) => {
        await page.fill("#email", email(width));
        await page.fill("#password", "not-the-password");
        await submit(page, "button:has-text('Log in')");
      },
    },
    {
      name: "login-422",
      go: async (page) => {
        await skipBrowserChecks(page);
        await page.fill("#email", "nobody");
        await page.fill("#password", "");
        await submit(page, "button:has-text('Log in')");
      },
    },
    {
      // The sixth attempt on one email within 15 minutes: 429.
      name: "login-429",
      go: async (page, width) => {
        for (let attempt = 1; attempt <= 6; attempt++) {
          await page.goto("/auth/login");
          await page.fill("#email", `locked.${width}@example.com`);
          await page.fill("#password", "not-the-password");
          await submit(page, "button:has-text('Log in')");
        }
      },
      check: async (page) => {
        assert.match(
          await page.locator("main").innerText(),
          /Too many login attempts/,
        );
      },
    },
    {
      name: "forgot-password",
      go: async (page) => {
        await page.goto("/auth/login");
        await page.click("text=Forgot password?");
      },
    },
    {
      name: "forgot-password-422",
      go: async (page) => {
        await skipBrowserChecks(page);
        await page.fill("#email", "nobody");
        await submit(page, "button:has-text('Send the link')");
      },
      check: async (page) => {
        // The first invalid field has the focus, without a script.
        assert.equal(await page.evaluate("document.activeElement.id"), "email");
      },
    },
    {
      name: "forgot-password-sent",
      go: async (page, width) => {
        await page.fill("#email", email(width));
        await submit(page, "button:has-text('Send the link')");
      },
    },
    {
      name: "reset-password",
      go: async (page, width) =>
        void await page.goto(await resetLinkFor(output, email(width))),
    },
    {
      name: "reset-password-422",
      go: async (page) => {
        await skipBrowserChecks(page);
        await page.fill("#password", "short");
        await submit(page, "button:has-text('Save the new password')");
      },
      check: async (page) => {
        assert.equal(
          await page.evaluate("document.activeElement.id"),
          "password",
        );
      },
    },
    {
      name: "reset-link-expired",
      go: async (page) =>
        void await page.goto(`/password/reset/${"x".repeat(43)}`),
    },
    {
      name: "admin-users",
      go: async (page) => {
        await page.goto("/auth/login");
        await page.fill("#email", "admin@example.com");
        await page.fill("#password", "admin-password");
        await submit(page, "button:has-text('Log in')");
        await page.goto("/admin/users");
      },
    },
    {
      name: "admin-settings",
      go: async (page) => void await page.goto("/admin/settings"),
    },
    {
      name: "admin-jobs",
      go: async (page) => void await page.goto("/admin/jobs"),
    },
  ];
}

/**
 * The security page, re-authentication and two-factor authentication, as
 * the user signed in by the steps before (password "a-long-password"):
 * set up, backup codes, the sign-in step, signed in again with a backup
 * code for the steps after.
 */
function twoFactorSteps(email: (width: number) => string): Step[] {
  const codes = new Map<number, string[]>();
  return [
    {
      name: "security",
      go: async (page) => void await page.goto("/profile/security"),
    },
    {
      name: "confirm",
      go: async (page) => void await page.goto("/profile/two-factor"),
    },
    {
      name: "confirm-422",
      go: async (page) => {
        await page.fill("#password", "not-the-password");
        await submit(page, "button:has-text('Confirm')");
      },
    },
    {
      name: "two-factor-setup",
      go: async (page) => {
        await page.fill("#password", "a-long-password");
        await submit(page, "button:has-text('Confirm')");
      },
    },
    {
      name: "two-factor-setup-422",
      go: async (page) => {
        await page.fill("#code", "000000");
        await submit(page, "button:has-text('Turn on')");
      },
    },
    {
      name: "two-factor-backup-codes",
      go: async (page, width) => {
        const secret = (await page.textContent("#totp-secret"))!
          .replaceAll(" ", "");
        await page.fill("#code", await totpCode(secret));
        await submit(page, "button:has-text('Turn on')");
        codes.set(
          width,
          await page.locator("#backup-codes li").allTextContents(),
        );
      },
    },
    {
      name: "two-factor-manage",
      go: async (page) => void await page.goto("/profile/two-factor"),
    },
    {
      name: "two-factor-login",
      go: async (page, width) => {
        await submit(page, "button:has-text('Log out')");
        await page.fill("#email", email(width));
        await page.fill("#password", "a-long-password");
        await submit(page, "button:has-text('Log in')");
      },
    },
    {
      name: "two-factor-login-422",
      go: async (page) => {
        await page.fill("#code", "000000");
        await submit(page, "button:has-text('Verify')");
      },
    },
    {
      name: "security-two-factor-on",
      go: async (page, width) => {
        await page.fill("#code", codes.get(width)![0].trim());
        await submit(page, "button:has-text('Verify')");
        await page.goto("/profile/security");
      },
    },
  ];
}

function resourcesSteps(): Step[] {
  return [
    { name: "home-empty", go: async (page) => void await page.goto("/") },
    { name: "new", go: async (page) => void await page.goto("/posts/new") },
    {
      name: "new-422",
      go: async (page) => {
        await page.fill("#title", " ");
        await submit(page, "button:has-text('Create')");
      },
    },
    {
      name: "home",
      go: async (page) => {
        await page.fill("#title", "Forms, validated end to end");
        await page.fill("#body", "Its body.");
        await submit(page, "button:has-text('Create')");
      },
    },
    {
      name: "show",
      go: async (page) =>
        await page.click("ul.posts a:has-text('Forms, validated end to end')"),
    },
    {
      name: "delete-confirm",
      go: async (page) => await page.click(".actions summary"),
    },
    {
      name: "edit",
      go: async (page) => await page.click(".actions a:has-text('Edit')"),
    },
    {
      name: "edit-422",
      go: async (page) => {
        await page.fill("#title", " ");
        await submit(page, "button:has-text('Save')");
      },
    },
    {
      name: "404",
      go: async (page) => void await page.goto("/posts/999/edit"),
    },
    {
      name: "404-unknown-path",
      go: async (page) => void await page.goto("/no-such-page"),
    },
  ];
}

function uploadsSteps(): Step[] {
  const file = (name: string, bytes: number, mimeType = "text/plain") => ({
    name,
    mimeType,
    buffer: Buffer.alloc(bytes),
  });
  return [
    { name: "empty", go: async (page) => void await page.goto("/") },
    {
      name: "uploaded",
      go: async (page) => {
        await page.setInputFiles("#files", [
          file("holiday-photo.jpg", 1_500_000, "image/jpeg"),
          file("notes.txt", 2_000),
        ]);
        await submit(page, "button:has-text('Upload')");
      },
    },
    {
      name: "413-file-too-large",
      go: async (page) => {
        await page.setInputFiles("#files", [
          file("huge.bin", 6 * 2 ** 20, "application/octet-stream"),
        ]);
        await submit(page, "button:has-text('Upload')");
      },
      check: async (page) => {
        const text = await page.locator("main").innerText();
        assert.match(text, /too large: the limit is 5 MiB/);
        assert.match(text, /holiday-photo\.jpg/, "earlier uploads still shown");
      },
    },
    {
      name: "413-too-many-files",
      go: async (page) => {
        await page.goto("/");
        await page.setInputFiles(
          "#files",
          Array.from({ length: 21 }, (_, i) => file(`small-${i}.txt`, 10)),
        );
        await submit(page, "button:has-text('Upload')");
      },
      check: async (page) => {
        const text = await page.locator("main").innerText();
        assert.match(text, /at most 20 files/);
        assert.doesNotMatch(text, /too large/);
        assert.match(text, /holiday-photo\.jpg/, "earlier uploads still shown");
      },
    },
    {
      name: "422-no-file-chosen",
      go: async (page) => {
        await page.goto("/");
        // The input's `required` stops a browser first; the server's own
        // answer is what a browser without it (or a script) gets.
        await skipBrowserChecks(page);
        await submit(page, "button:has-text('Upload')");
      },
      check: async (page) => {
        const text = await page.locator("main").innerText();
        assert.match(text, /Choose at least one file to upload\./);
      },
    },
    {
      name: "uploaded-empty-file",
      go: async (page) => {
        await page.goto("/");
        await page.setInputFiles("#files", [file("empty.txt", 0)]);
        await submit(page, "button:has-text('Upload')");
      },
      check: async (page) => {
        const text = await page.locator("main").innerText();
        assert.match(text, /Uploaded 1 file\./);
        assert.match(text, /empty\.txt \(0 bytes/);
      },
    },
    { name: "404", go: async (page) => void await page.goto("/no-such-page") },
  ];
}

function liveSteps(): Step[] {
  return [
    {
      name: "board",
      go: async (page) => {
        await page.goto("/");
        await page.locator("#status.live").waitFor({ timeout: 10_000 });
      },
    },
    {
      name: "board-posted",
      go: async (page, width) => {
        await page.fill("input[name=name]", "Ada");
        await page.fill("input[name=text]", `Hello from ${width} px`);
        await page.click("button[type=submit]");
        await page.locator("#messages li").first().waitFor();
      },
    },
    {
      name: "board-websocket",
      go: async (page) => {
        await page.goto("/?transport=ws");
        await page.locator("#status.live").waitFor({ timeout: 10_000 });
      },
    },
    {
      // A form posted without script (submit() skips the page's handler
      // and the browser's checks), with an empty message: a page, 422.
      name: "422-no-script",
      go: async (page) => {
        await page.goto("/");
        await page.fill("input[name=name]", "Ada");
        await Promise.all([
          page.waitForNavigation(),
          page.evaluate(`document.getElementById("post").submit()`),
        ]);
      },
      check: async (page) => {
        assert.match(await page.locator("main").innerText(), /Fill in text\./);
      },
    },
    { name: "404", go: async (page) => void await page.goto("/no-such-page") },
  ];
}

function multiServerSteps(): Step[] {
  return [
    { name: "login", go: async (page) => void await page.goto("/") },
    {
      name: "signed-in",
      go: async (page) => {
        await page.fill("#name", "Ada Lovelace");
        await submit(page, "button:has-text('Log in')");
      },
    },
    { name: "404", go: async (page) => void await page.goto("/no-such-page") },
  ];
}

Deno.test({
  name:
    "axe: every example page (errors too) has 0 violations at 1280 and 390 px, none wider than the screen",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the axe test of the examples");
    if (executablePath === undefined) return;
    const redisServer = await redisServerOrSkip();
    const temp = await Deno.makeTempDir({ prefix: "examples-axe-" });
    const cleanups: (() => Promise<unknown>)[] = [];
    // Last: the folder, once empty (screenshots saved in the repo).
    if (Deno.env.get("SAVE_SCREENSHOTS")) {
      cleanups.push(() => Deno.remove(temp, { recursive: true }));
    }
    const browser = await launchChromium(executablePath);
    cleanups.push(() => browser.close());
    const findings: Finding[] = [];
    try {
      const inProcess = (fetch: ServeHandler) => {
        const server = serve(fetch, {
          hostname: "127.0.0.1",
          port: 0,
          onListen() {},
        });
        cleanups.push(() => server.shutdown());
        return `http://127.0.0.1:${server.addr.port}`;
      };

      if (wanted("auth")) {
        const auth = await startMain({
          DENO_KV_PATH: `${temp}/auth/auth.sqlite`,
          ADMIN_EMAIL: "admin@example.com",
          ADMIN_PASSWORD: "admin-password",
        });
        // Reversed at the end: the server stops before its KV file goes.
        cleanups.push(() => Deno.remove(`${temp}/auth`, { recursive: true }));
        cleanups.push(() => auth.stop());
        // On localhost, as the passkeys need (Chromium refuses WebAuthn
        // on 127.0.0.1): the login page then offers its passkey button.
        const base = auth.url.replace("127.0.0.1", "localhost");
        findings.push(
          ...await audit(browser, "auth", base, authSteps(auth.output), temp),
        );
      }

      if (wanted("resources")) {
        const resources = () =>
          inProcess(createResourcesApp({ log: null }).fetch);
        findings.push(
          ...await audit(
            browser,
            "resources",
            resources,
            resourcesSteps(),
            temp,
          ),
        );
      }

      if (wanted("uploads")) {
        const uploads = () => {
          const directory = Deno.makeTempDirSync({ dir: temp });
          cleanups.push(() => Deno.remove(directory, { recursive: true }));
          return inProcess(createUploadsApp({ directory }).fetch);
        };
        findings.push(
          ...await audit(browser, "uploads", uploads, uploadsSteps(), temp),
        );
      }

      if (wanted("live")) {
        const pubsub = createMemoryPubSub();
        cleanups.push(async () => await pubsub.close());
        const live = inProcess(
          createLiveApp({ pubsub, serverName: "server A", log: () => {} })
            .fetch,
        );
        findings.push(...await audit(browser, "live", live, liveSteps(), temp));
      }

      if (redisServer !== undefined && wanted("multi_server")) {
        const redis = await startRedis(redisServer);
        cleanups.push(() => redis.stop());
        const multi = await startCommand(
          REPO,
          "deno run -P=multi-server examples/multi_server/main.ts",
          {
            PORT: "0",
            REDIS_URL: redis.url,
            SESSION_SECRET: crypto.randomUUID() + crypto.randomUUID(),
          },
        );
        cleanups.push(() => multi.stop());
        findings.push(
          ...await audit(
            browser,
            "multi_server",
            multi.origin,
            multiServerSteps(),
            temp,
          ),
        );
      }
    } finally {
      for (const cleanup of cleanups.reverse()) await cleanup();
    }

    const lines = findings.map((f) =>
      `${f.example.padEnd(13)} ${f.page.padEnd(20)} ${
        String(f.width).padStart(4)
      } px: ${
        f.violations.length === 0 ? "0 violations" : f.violations.join("; ")
      }${
        f.width < 500 && f.scrollWidth > f.width
          ? ` (${f.scrollWidth} px wide)`
          : ""
      }`
    );
    console.log(lines.join("\n"));
    console.log(
      `screenshots: ${
        Deno.env.get("SAVE_SCREENSHOTS") ? "examples/*/screenshots" : temp
      }`,
    );
    const bad = findings.filter((f) =>
      f.violations.length > 0 || f.scrollWidth > f.width
    );
    assert.deepEqual(
      bad.map((f) => `${f.example} ${f.page} ${f.width}`),
      [],
      "pages with axe violations or wider than the screen (see above)",
    );
  },
});
