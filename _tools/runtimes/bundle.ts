/**
 * Builds one JavaScript file per runtime from the portable test files, for
 * `runtimes_test.ts` to run under Node and Bun.
 *
 * How TypeScript reaches Node 20: `deno bundle` (Deno's own esbuild-based
 * bundler) resolves the repo exactly as `deno test` does (the package's
 * own name through `deno.json` exports, `npm:` dependencies from Deno's
 * cache), strips the types and writes one ES module. Node and Bun then run
 * plain JavaScript: no loader hook, no transpiler from npm, nothing that
 * can resolve a module differently from Deno. Packages with native code
 * (`@deno/kv`, `bcrypt`) stay external and load from
 * `_tools/runtimes/node_modules`. `bundleProgram()` does the same for a
 * server program (the deploy example's instance).
 *
 * A test file is portable when it and the test helpers it imports call no
 * `Deno.*` API other than `Deno.test`, which the bundle renames to the
 * harness's `test` (`harness.ts`). The library itself has no `Deno.*` at
 * module load, so nothing else needs renaming.
 */

import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** The repository root. */
export const ROOT: string = resolve(
  dirname(fileURLToPath(import.meta.url)),
  "../..",
);
/** Where bundles and their entry files go (git-ignored). */
export const OUT: string = join(ROOT, "_tools/runtimes/.out");

/** Folders whose test files are never portable or never wanted here. */
const SKIP_DIRS = new Set([
  "node_modules",
  ".git",
  ".out",
  "bench",
  "docs",
  "_tools",
]);

/** Test files that look portable but rely on Deno behaviour, with why. */
const DENO_ONLY: Record<string, string> = {
  "form_data/fuzz_test.ts":
    "its oracle is Deno's own request.formData(); Node's (undici) and " +
    "Bun's differ from it at the edges the fuzzer finds (a BOM, an " +
    "unterminated quoted parameter, raw bytes beside percent escapes)",
  "examples/auth/passwords_test.ts":
    "npm:bcrypt is a native addon that a bundle cannot carry",
  "examples/auth/config_mail_test.ts":
    "config.ts imports passwords.ts, so npm:bcrypt, a native addon that a " +
    "bundle cannot carry",
};

const DENO_API = /(^|[^.\w])Deno\.(?!test\b|Test[A-Z])[A-Za-z]/;
const RELATIVE_IMPORT = /(?:from|import)\s*["'](\.{1,2}\/[^"']+)["']/g;

function usesDeno(path: string, seen: Set<string>): boolean {
  if (seen.has(path)) return false;
  seen.add(path);
  const text = Deno.readTextFileSync(path);
  const code = text.split("\n").filter((line) => {
    const trimmed = line.trimStart();
    return !trimmed.startsWith("//") && !trimmed.startsWith("*");
  }).join("\n");
  if (DENO_API.test(code)) return true;
  for (const [, specifier] of code.matchAll(RELATIVE_IMPORT)) {
    const target = resolve(dirname(path), specifier);
    // Library modules are portable by design; test helpers are checked.
    if (
      /_test|testdata|[\\/]_tools[\\/]/.test(target) && usesDeno(target, seen)
    ) return true;
  }
  return false;
}

/**
 * Whether the module at `path` imports `target` (absolute paths), itself or
 * through the test helpers it imports (relative imports only).
 */
export function reaches(
  path: string,
  target: string,
  seen: Set<string> = new Set(),
): boolean {
  if (path === target) return true;
  if (seen.has(path)) return false;
  seen.add(path);
  const text = Deno.readTextFileSync(path);
  for (const [, specifier] of text.matchAll(RELATIVE_IMPORT)) {
    const next = resolve(dirname(path), specifier);
    if (
      next === target ||
      (/_test|testdata|[\\/]_tools[\\/]/.test(next) &&
        reaches(next, target, seen))
    ) return true;
  }
  return false;
}

function walk(dir: string, found: string[]): void {
  for (const entry of Deno.readDirSync(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory) {
      if (!SKIP_DIRS.has(entry.name)) walk(path, found);
    } else if (entry.name.endsWith("_test.ts")) {
      found.push(path);
    }
  }
}

/** The repo's test files that run unchanged on Node and Bun, sorted. */
export function portableTestFiles(): string[] {
  const all: string[] = [];
  walk(ROOT, all);
  return all.filter((path) =>
    !(relative(ROOT, path) in DENO_ONLY) && !usesDeno(path, new Set())
  ).sort();
}

/**
 * Packages every bundle here leaves external, loaded from
 * `_tools/runtimes/node_modules` (`package.json` beside this file): native
 * code (`@deno/kv`, `bcrypt`, whose npm tarball ships prebuilt N-API
 * binaries, so `npm ci --ignore-scripts` suffices), or the runtime's own
 * copy (`@hono/node-server`).
 */
export const EXTERNAL_PACKAGES: readonly string[] = [
  "@deno/kv",
  "@hono/node-server",
  "bcrypt",
];

/** `deno bundle` of `entry` into `output`, packages of EXTERNAL_PACKAGES left out. */
async function denoBundle(
  name: string,
  entry: string,
  output: string,
  extraArgs: readonly string[] = [],
): Promise<void> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--platform=deno",
      ...EXTERNAL_PACKAGES.map((name) => `--external=${name}`),
      ...extraArgs,
      "--output",
      output,
      entry,
    ],
    cwd: ROOT,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(
      `deno bundle failed for ${name}:\n${new TextDecoder().decode(stderr)}`,
    );
  }
}

/**
 * Bundles a program (`entry`, an absolute path: a server, not tests) into
 * `.out/<name>.mjs` for Node and Bun, resolved as `deno run` resolves it;
 * the packages of {@linkcode EXTERNAL_PACKAGES} load from `node_modules`
 * beside this file, which `binaries.ts` `dependencies()` installs.
 *
 * @returns The bundle's path.
 */
export async function bundleProgram(
  entry: string,
  name: string,
): Promise<string> {
  // `deno bundle` makes the folder: the caller needs no write permission.
  const output = join(OUT, `${name}.mjs`);
  await denoBundle(name, entry, output);
  return output;
}

/** Options of {@linkcode bundleTests}. */
export interface BundleOptions {
  /**
   * Specifiers mapped to other files (absolute paths) in this bundle only,
   * on top of `deno.json`'s `imports`. Keys match whole specifiers, so
   * `@fetchkit/toolkit/fetch-router` leaves `.../fetch-router/routes` and
   * the other exports resolving by the package's own name.
   */
  replace?: Record<string, string>;
}

/** An import map: `deno.json`'s `imports` plus `replace`; its path. */
async function importMapWith(
  name: string,
  replace: Record<string, string>,
): Promise<string> {
  const config = JSON.parse(
    await Deno.readTextFile(join(ROOT, "deno.json")),
  ) as { imports?: Record<string, string> };
  const imports: Record<string, string> = { ...config.imports };
  for (const [specifier, path] of Object.entries(replace)) {
    imports[specifier] = pathToFileURL(path).href;
  }
  const path = join(OUT, `${name}_import_map.json`);
  await Deno.writeTextFile(path, JSON.stringify({ imports }, null, 2) + "\n");
  return path;
}

/**
 * Bundles `files` (absolute paths of test modules) into
 * `.out/<name>.mjs`, with a last statement that runs them.
 *
 * @returns The bundle's path.
 */
export async function bundleTests(
  name: string,
  files: readonly string[],
  options: BundleOptions = {},
): Promise<string> {
  await Deno.mkdir(OUT, { recursive: true });
  const importMap = options.replace === undefined
    ? []
    : ["--import-map", await importMapWith(name, options.replace)];
  const entry = join(OUT, `${name}_entry.ts`);
  const lines = [
    `import { run } from "../harness.ts";`,
    ...files.map((file) =>
      `import ${JSON.stringify(relative(OUT, file).replaceAll("\\", "/"))};`
    ),
    `await run(${JSON.stringify(name)});`,
  ];
  await Deno.writeTextFile(entry, lines.join("\n") + "\n");
  const output = join(OUT, `${name}.mjs`);
  await denoBundle(name, entry, output, importMap);
  const text = await Deno.readTextFile(output);
  await Deno.writeTextFile(
    output,
    text.replace(/(^|[^.\w])Deno\.test\b/g, "$1__fetchkitTest"),
  );
  return output;
}
