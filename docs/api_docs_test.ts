// `deno task docs` as a reader meets it: the front page is a linked map of
// every export, every page has the module list (not deno doc's few symbols of
// one module), and no page scrolls sideways at 390 px in Chromium.
import assert from "node:assert/strict";
import { chromiumOrSkip } from "../_tools/chromium.ts";
import { launchChromium } from "../_tools/browser.ts";

const ROOT = new URL("../", import.meta.url);
const config = JSON.parse(
  await Deno.readTextFile(new URL("deno.json", ROOT)),
);
const subpaths = Object.keys(config.exports).filter((key) => key !== ".")
  .map((key) => key.slice(2));

async function buildDocs(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "fetchkit-api-docs-" });
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "_tools/docs.ts", "html", dir],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "null",
    stderr: "piped",
  }).output();
  assert.ok(success, new TextDecoder().decode(stderr));
  return dir;
}

const dir = await buildDocs();
const chromium = await chromiumOrSkip("API docs at 390 px");

Deno.test("API docs front page links every export's page, grouped by task", async () => {
  const index = await Deno.readTextFile(`${dir}/index.html`);
  // The map in mod.ts's module docs: one link per export, under headings.
  const map = index.slice(0, index.indexOf('<nav class="modules">'));
  for (const sub of subpaths) {
    assert.ok(
      map.includes(`href="${sub}/index.html"`),
      `the front page's map does not link ${sub}`,
    );
    assert.ok((await Deno.stat(`${dir}/${sub}/index.html`)).isFile);
  }
  for (
    const task of [
      "routing",
      "bodies",
      "sessions",
      "security",
      "realtime",
      "caching",
      "background",
      "sign-in",
      "operations",
    ]
  ) {
    assert.match(map, new RegExp(`<h3 id="[^"]*${task}`), task);
  }
  assert.doesNotMatch(index, /jsr\.io\/@fetchkit\/toolkit\/doc\//);
});

Deno.test("API docs: every page lists the modules instead of one module's symbols", async () => {
  const pages = [`${dir}/index.html`, `${dir}/fetch-router/routes/index.html`];
  for (const sub of ["fetch-router", "session-middleware", "validation"]) {
    pages.push(`${dir}/${sub}/index.html`);
  }
  for (const page of pages) {
    const text = await Deno.readTextFile(page);
    assert.doesNotMatch(text, /class="topSymbols"/, page);
    const nav = /<nav class="modules">([\s\S]*?)<\/nav>/.exec(text)?.[1];
    assert.ok(nav, `${page} has no module list`);
    for (const sub of subpaths) assert.match(nav, new RegExp(`>${sub}<`));
  }
});

Deno.test({
  name: "API docs: no page scrolls sideways at 390 px or 1280 px (Chromium)",
  ignore: chromium === undefined,
}, async () => {
  const browser = await launchChromium(chromium!);
  try {
    const pages = [
      "index.html",
      "fetch-router/index.html",
      "fetch-router/~/createRouter.html",
      "session-middleware/index.html",
      "validation/index.html",
      "all_symbols.html",
    ];
    for (const width of [390, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      for (const path of pages) {
        await page.goto(new URL(path, `file://${dir}/`).href);
        const scrollWidth = await page.evaluate<number>(
          "document.documentElement.scrollWidth",
        );
        assert.ok(
          scrollWidth <= width,
          `${path} at ${width} px is ${scrollWidth} px wide`,
        );
      }
      await page.close();
    }
  } finally {
    await browser.close();
  }
});

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});
