// The login page with two providers configured (GitHub and an OpenID
// provider), in headless chromium at 1280 and 390 px: each provider is its
// own button (a box of its own, one under the other, as wide as the list),
// never "Sign in with GitHubSign in with OpenID" on one line. Screenshots
// go to a temp folder (printed), or with SAVE_SCREENSHOTS=1 to
// examples/auth/screenshots/login-providers-<width>.png.
import assert from "node:assert/strict";
import { launchChromium } from "../../_tools/browser.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";
import { freePort } from "../../_tools/redis.ts";
import { createApp } from "./app.ts";
import { loadOAuthProviders } from "./oauth.ts";
import { createSessionStorage } from "./sessions.ts";
import { SECRET } from "./_test_app.ts";

interface Box {
  text: string;
  x: number;
  y: number;
  width: number;
  height: number;
  display: string;
}

Deno.test({
  name:
    "login page: each configured provider is its own button at 1280 and 390 px",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the provider buttons test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "providers-browser-" });
    const shots = Deno.env.get("SAVE_SCREENSHOTS")
      ? new URL("./screenshots", import.meta.url).pathname
      : `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const port = freePort();
    const origin = `http://127.0.0.1:${port}`;
    const env: Record<string, string> = {
      GITHUB_CLIENT_ID: "github-id",
      GITHUB_CLIENT_SECRET: "github-secret",
      OIDC_ISSUER: "http://127.0.0.1:9/",
      OIDC_CLIENT_ID: "oidc-id",
      OIDC_NAME: "OpenID",
    };
    const kv = await Deno.openKv(":memory:");
    const app = await createApp({
      kv,
      sessions: createSessionStorage({
        kind: "kv",
        kv,
        secrets: [SECRET],
        secure: false,
      }),
      bcryptCost: 4,
      log: null,
      admin: { email: "admin@example.com", password: "admin-password" },
      oauthProviders: loadOAuthProviders((name) => env[name]),
      publicUrl: origin,
    });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen() {} },
      (request, info) => app.fetch(request, info),
    );
    const browser = await launchChromium(executablePath);
    try {
      const page = await browser.newPage();
      for (const width of [1280, 390]) {
        await page.setViewportSize({ width, height: 900 });
        await page.goto(`${origin}/auth/login`);
        const boxes = await page.evaluate<Box[]>(`
          [...document.querySelectorAll(".providers a")].map((a) => {
            const r = a.getBoundingClientRect();
            return { text: a.textContent.trim(), x: r.x, y: r.y,
              width: r.width, height: r.height,
              display: getComputedStyle(a).display };
          })`);
        const list = await page.evaluate<number>(
          `document.querySelector(".providers").getBoundingClientRect().width`,
        );
        assert.equal(boxes.length, 2, JSON.stringify(boxes));
        assert.match(boxes[0].text, /^Sign in with GitHub$/i);
        assert.equal(boxes[1].text, "Sign in with OpenID");
        for (const box of boxes) {
          assert.equal(box.display, "block", `${box.text} at ${width} px`);
          // As wide as the list: a button of its own line, not a word in a sentence.
          assert.ok(
            Math.abs(box.width - list) < 1,
            `${box.text} is ${box.width} px wide in a ${list} px list at ${width} px`,
          );
          assert.ok(box.height >= 32, `${box.text} is ${box.height} px high`);
        }
        const [first, second] = boxes;
        assert.ok(
          second.y >= first.y + first.height,
          `at ${width} px the second button (y ${second.y}) overlaps the first (y ${first.y}, ${first.height} px high)`,
        );
        const scrollWidth = await page.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(scrollWidth <= width, `login is ${scrollWidth} px wide`);
        await page.screenshot({
          path: `${shots}/login-providers-${width}.png`,
          fullPage: true,
        });
      }
      console.log(`screenshots: ${shots}`);
    } finally {
      await browser.close();
      await server.shutdown();
      kv.close();
    }
  },
});
