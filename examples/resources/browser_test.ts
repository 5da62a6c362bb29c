// The resources example in a real browser: Debian's chromium, driven by
// playwright-core. A post that fails validation comes back with its values
// and each error right below its field. Screenshots go to $SCREENSHOT_DIR
// (default: a temp folder, printed).
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { launchChromium } from "../../_tools/browser.ts";
import { createApp } from "./app.ts";
import { chromiumOrSkip } from "../../_tools/chromium.ts";

/** The error's box starts within a line below the field's box. */
async function assertBelow(page: Page, field: string, error: string) {
  const fieldBox = await page.locator(field).boundingBox();
  const errorBox = await page.locator(error).boundingBox();
  assert.ok(fieldBox && errorBox, `${field} and ${error} are visible`);
  const gap = errorBox.y - (fieldBox.y + fieldBox.height);
  assert.ok(gap >= 0 && gap < 30, `${error} is ${gap}px below ${field}`);
}

Deno.test({
  name: "resources browser: validation errors beside their fields, values kept",
  // playwright keeps a few internal timers and sockets past close().
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const executablePath = await chromiumOrSkip("the resources browser test");
    if (executablePath === undefined) return;
    const dir = await Deno.makeTempDir({ prefix: "resources-browser-" });
    const shots = Deno.env.get("SCREENSHOT_DIR") ?? `${dir}/screenshots`;
    await Deno.mkdir(shots, { recursive: true });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen() {} },
      createApp({ log: null }).fetch,
    );
    const base = `http://127.0.0.1:${server.addr.port}`;
    const browser = await launchChromium(executablePath);
    try {
      const context = await browser.newContext({
        viewport: { width: 800, height: 480 },
      });
      const page = await context.newPage();
      const shot = (name: string) =>
        page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });

      await page.goto(base + "/posts/new");
      await shot("01-new-post");

      // Blank after trimming: the server says so beside the title.
      await page.fill("input[name=title]", "   ");
      await page.fill("textarea[name=body]", "A body worth keeping.");
      const [blank] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.click("button:has-text('Create')"),
      ]);
      assert.equal(blank.status(), 422);
      assert.equal(
        await page.locator("#title-error").textContent(),
        "Title is required",
      );
      assert.equal(
        await page.getAttribute("input[name=title]", "aria-invalid"),
        "true",
      );
      assert.equal(
        await page.inputValue("textarea[name=body]"),
        "A body worth keeping.",
      );
      await assertBelow(page, "input[name=title]", "#title-error");
      await shot("02-title-required");

      // Too long: the value comes back as typed, with the limit.
      const long = "A title that goes on ".repeat(12);
      await page.fill("input[name=title]", long);
      await page.click("button:has-text('Create')");
      await page.waitForSelector("text=Title must be at most 200 characters");
      assert.equal(await page.inputValue("input[name=title]"), long);
      await assertBelow(page, "input[name=title]", "#title-error");
      await shot("03-title-too-long");

      // Valid: created, back to the list, which says so.
      await page.fill("input[name=title]", "Forms end to end");
      await page.click("button:has-text('Create')");
      await page.waitForURL(/\/\?created=/);
      assert.equal(
        await page.locator("li a").first().textContent(),
        "Forms end to end",
      );
      assert.equal(
        await page.locator("[role=status]").textContent(),
        "Created “Forms end to end”.",
      );
      await shot("04-created");

      // The post's own page, in the browser (not JSON), then its editor.
      await page.click("ul.posts a:has-text('Forms end to end')");
      await page.waitForURL(/\/posts\/1$/);
      assert.equal(await page.locator("h1").textContent(), "Forms end to end");
      assert.equal(
        await page.locator("article").textContent(),
        "A body worth keeping.",
      );
      await shot("04b-show");
      // Editing follows the same rules through PUT.
      await page.click(".actions a:has-text('Edit')");
      await page.fill("input[name=title]", "");
      await page.fill("input[name=title]", " ");
      await page.click("button:has-text('Save')");
      await page.waitForSelector("#title-error");
      assert.equal(
        await page.locator("h1").textContent(),
        "Edit Forms end to end",
      );
      assert.equal(
        await page.locator("#title-error").textContent(),
        "Title is required",
      );
      await assertBelow(page, "input[name=title]", "#title-error");
      await shot("05-edit-title-required");
      await page.fill("input[name=title]", "Forms, validated");
      await page.click("button:has-text('Save')");
      await page.waitForURL(/\/\?saved=/);
      assert.equal(
        await page.locator("li a").first().textContent(),
        "Forms, validated",
      );

      // Deleting asks first: "Delete" opens a confirmation; nothing is gone
      // until its button is pressed, and the list then says what went.
      await page.click("li summary");
      assert.equal(await page.locator("li").count(), 1);
      await shot("06-delete-confirm");
      await page.click("button:has-text('Yes, delete it')");
      await page.waitForURL(/\/\?deleted=/);
      assert.equal(await page.locator("li").count(), 0);
      assert.equal(
        await page.locator("[role=status]").textContent(),
        "Deleted “Forms, validated”.",
      );
      await shot("07-deleted");

      // /posts in a browser is the list page, not raw JSON.
      await page.goto(base + "/posts");
      assert.equal(await page.locator("h1").textContent(), "Posts");
      console.log(`screenshots: ${shots}`);
      await context.close();
    } finally {
      await browser.close();
      await server.shutdown();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
});
