// axe-core in a Playwright page, and where a browser test's screenshots go:
// shared by the browser tests of the examples.
import axe from "axe-core";
import type { Page } from "playwright-core";

/**
 * Runs axe-core in `page` as it is; one line per violation (impact, rule,
 * the first three places). Evaluated through the devtools protocol, so a
 * page's CSP does not block it (the auth and live apps allow only their
 * own scripts).
 */
export async function runAxe(page: Page): Promise<string[]> {
  if (!(await page.evaluate<boolean>("typeof axe === 'object'"))) {
    await page.evaluate(axe.source);
  }
  return await page.evaluate<string[]>(`
    axe.run(document, { resultTypes: ["violations"] }).then((result) =>
      result.violations.map((v) =>
        v.impact + " " + v.id + ": " +
        v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")
      )
    )`);
}

/**
 * A folder for screenshots, made: `saved` (an example's `screenshots/`)
 * when SAVE_SCREENSHOTS is set, to look at and keep, else `temp`.
 */
export async function screenshotsDir(
  saved: string,
  temp: string,
): Promise<string> {
  const dir = Deno.env.get("SAVE_SCREENSHOTS") ? saved : temp;
  await Deno.mkdir(dir, { recursive: true });
  return dir;
}
