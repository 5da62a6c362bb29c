// Test helper: Debian's headless chromium loads a page and prints its DOM
// once the page's scripts are done (`--virtual-time-budget` lets pending
// fetches finish first). No driver library needed.

/** Where `chromium` is, or `undefined` when it is not installed. */
async function findChromium(): Promise<string | undefined> {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (dir === "") continue;
    try {
      const path = `${dir}/chromium`;
      if ((await Deno.stat(path)).isFile) return path;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/**
 * The chromium to use, or `undefined` (with a one-line notice) to skip;
 * with CI or TOOLKIT_REQUIRE_ALL set, a missing chromium is an error.
 */
export async function chromiumOrSkip(
  what: string,
): Promise<string | undefined> {
  const path = await findChromium();
  if (path !== undefined) return path;
  if (Deno.env.get("CI") || Deno.env.get("TOOLKIT_REQUIRE_ALL")) {
    throw new Error(
      "chromium is not installed, and CI or TOOLKIT_REQUIRE_ALL is set",
    );
  }
  console.log(`skipping ${what}: chromium is not installed`);
  return undefined;
}

/** Loads `url` in headless chromium and returns the page's final DOM. */
export async function dumpDom(chromium: string, url: string): Promise<string> {
  const profile = await Deno.makeTempDir({ prefix: "chromium-" });
  try {
    const { stdout, stderr, success } = await new Deno.Command(chromium, {
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        `--user-data-dir=${profile}`,
        "--virtual-time-budget=10000",
        "--dump-dom",
        url,
      ],
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(60_000),
    }).output();
    const dom = new TextDecoder().decode(stdout);
    if (!success) {
      throw new Error(`chromium failed:\n${new TextDecoder().decode(stderr)}`);
    }
    return dom;
  } finally {
    await Deno.remove(profile, { recursive: true });
  }
}
