/**
 * How fast the types of a contract check: the same generated API (see
 * `_generate.ts`: units of 10 routes, resources, nested resources and
 * forms, a schema on each, and a client calling every route) as a route
 * map (`router.map()` + `createClient()`) and as a Hono app (`app.get/post`
 * chains + `hc<typeof app>`), at several sizes, in one run:
 *
 * - `deno check` wall time of `server.ts` + `client.ts` (a fresh comment in
 *   every file, so Deno's check cache never answers);
 * - `tsc --extendedDiagnostics` (npm `typescript`, the version Deno 2.9.6
 *   embeds) on the same files: instantiations, types, check time.
 *
 * Sides and sizes are interleaved (ours, Hono, ours, Hono, ...) and each is
 * repeated; medians are printed as a Markdown table. An empty app (0
 * routes) of each side gives the fixed cost of the libraries' own types.
 *
 * ```sh
 * deno run --allow-all bench/contracts/type_speed.ts [rounds=3] [sizes=0,100,250,500]
 * ```
 *
 * The work directory is `$TMPDIR/fetchkit_type_speed`, with its own
 * `deno.json` (mapping `@fetchkit/toolkit/*` to this checkout) and an npm
 * install of `typescript`, `zod`, `hono` and `@hono/standard-validator` at
 * the versions of this repo's `deno.json` (made once).
 *
 * @module
 */
import { type Files, hono, ours } from "./_generate.ts";
import { median } from "../_stats.ts";

const ROOT = new URL("../../", import.meta.url).pathname;
const WORK = `${Deno.env.get("TMPDIR") ?? "/tmp"}/fetchkit_type_speed`;
const TYPESCRIPT = "6.0.3";

const rounds = Number(Deno.args[0] ?? 3);
const sizes = (Deno.args[1] ?? "0,100,250,500").split(",").map(Number);

// Development dependencies' versions are in package.json, the runtime ones
// in deno.json.
const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
const { devDependencies } = JSON.parse(
  await Deno.readTextFile(`${ROOT}package.json`),
);
const npmVersion = (name: string): string =>
  devDependencies[name] ??
    (config.imports[name] as string).replace(`npm:${name}@`, "");

async function run(
  command: string,
  args: string[],
  cwd: string,
): Promise<{ ms: number; out: string; code: number }> {
  const start = performance.now();
  const { code, stdout, stderr } = await new Deno.Command(command, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  const ms = performance.now() - start;
  const out = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  return { ms, out, code };
}

async function setUp(): Promise<void> {
  await Deno.mkdir(WORK, { recursive: true });
  const toolkit: Record<string, string> = {};
  const paths: Record<string, string[]> = {};
  for (
    const [name, file] of Object.entries(
      config.exports as Record<string, string>,
    )
  ) {
    const spec = name === "."
      ? "@fetchkit/toolkit"
      : `@fetchkit/toolkit/${name.slice(2)}`;
    toolkit[spec] = ROOT + file.slice(2);
    paths[spec] = [ROOT + file.slice(2)];
  }
  const deps = {
    typescript: TYPESCRIPT,
    zod: npmVersion("zod"),
    hono: npmVersion("hono"),
    "@hono/standard-validator": npmVersion("@hono/standard-validator"),
    "@standard-schema/spec": npmVersion("@standard-schema/spec"),
  };
  await Deno.writeTextFile(
    `${WORK}/deno.json`,
    JSON.stringify(
      {
        imports: {
          ...toolkit,
          zod: `npm:zod@${deps.zod}`,
          hono: `npm:hono@${deps.hono}`,
          "hono/": `npm:/hono@${deps.hono}/`,
          "@hono/standard-validator": `npm:@hono/standard-validator@${
            deps["@hono/standard-validator"]
          }`,
        },
        nodeModulesDir: "none",
      },
      null,
      2,
    ),
  );
  await Deno.writeTextFile(
    `${WORK}/tsconfig.json`,
    JSON.stringify(
      {
        compilerOptions: {
          target: "ES2022",
          module: "ESNext",
          moduleResolution: "bundler",
          lib: ["ESNext", "DOM", "DOM.Iterable"],
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          skipLibCheck: true,
          types: [],
          paths,
        },
      },
      null,
      2,
    ),
  );
  const packageJson = JSON.stringify({ private: true, dependencies: deps });
  let installed = "";
  try {
    installed = await Deno.readTextFile(`${WORK}/tsc/package.json`);
  } catch { /* first run */ }
  if (installed !== packageJson) {
    await Deno.mkdir(`${WORK}/tsc`, { recursive: true });
    await Deno.writeTextFile(`${WORK}/tsc/package.json`, packageJson);
    const npm = await run("npm", [
      "install",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
    ], `${WORK}/tsc`);
    if (npm.code !== 0) throw new Error(`npm install failed:\n${npm.out}`);
  }
}

async function write(dir: string, files: Files): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
}

interface Sample {
  checkMs: number;
  instantiations: number;
  types: number;
  tscCheckS: number;
  errors: string;
}

async function measure(
  side: "ours" | "hono",
  units: number,
  round: number,
): Promise<Sample> {
  const nonce = `${side} ${units} ${round} ${Date.now()} ${Math.random()}`;
  // Below tsc/ so that tsc finds its node_modules walking up.
  const dir = `${WORK}/tsc/apps/${side}_${units}`;
  await write(dir, side === "ours" ? ours(units, nonce) : hono(units, nonce));
  const check = await run("deno", [
    "check",
    "--config",
    `${WORK}/deno.json`,
    "server.ts",
    "client.ts",
  ], dir);
  await Deno.writeTextFile(
    `${dir}/tsconfig.json`,
    JSON.stringify({
      extends: `${WORK}/tsconfig.json`,
      files: ["server.ts", "client.ts"],
    }),
  );
  const tsc = await run("node", [
    `${WORK}/tsc/node_modules/typescript/bin/tsc`,
    "-p",
    `${dir}/tsconfig.json`,
    "--extendedDiagnostics",
  ], dir);
  const number = (label: string) =>
    Number(
      new RegExp(`^${label}:\\s+([\\d.]+)`, "m").exec(tsc.out)?.[1] ?? NaN,
    );
  const tsErrors = tsc.out.split("\n").filter((line) =>
    / error TS\d+/.test(line)
  );
  return {
    checkMs: check.ms,
    instantiations: number("Instantiations"),
    types: number("Types"),
    tscCheckS: number("Check time"),
    errors: [
      check.code === 0 ? "" : `deno check failed: ${check.out.slice(0, 2000)}`,
      tsErrors.length === 0 ? "" : `tsc: ${tsErrors.slice(0, 5).join("\n")}`,
    ].filter(Boolean).join("\n"),
  };
}

await setUp();
const samples = new Map<string, Sample[]>();
for (let round = 0; round < rounds; round++) {
  for (const units of sizes.map((n) => n / 10)) {
    for (const side of ["ours", "hono"] as const) {
      const sample = await measure(side, units, round);
      if (sample.errors !== "") {
        console.error(`${side} ${units * 10}:\n${sample.errors}`);
      }
      const key = `${side} ${units * 10}`;
      samples.set(key, [...(samples.get(key) ?? []), sample]);
      console.error(
        `${key} routes: deno check ${
          sample.checkMs.toFixed(0)
        } ms, ${sample.instantiations} instantiations, tsc check ${sample.tscCheckS} s`,
      );
    }
  }
}

const med = (key: string, pick: (s: Sample) => number) =>
  median((samples.get(key) ?? []).map(pick));
console.log(
  `\nDeno ${Deno.version.deno} (TypeScript ${Deno.version.typescript}), tsc ${TYPESCRIPT}, ${rounds} rounds, medians\n`,
);
console.log(
  "| routes | `deno check` ours | `deno check` Hono | ours / Hono | instantiations ours | instantiations Hono | ours / Hono | types ours | types Hono | tsc check ours | tsc check Hono |",
);
console.log("|---|---|---|---|---|---|---|---|---|---|---|");
for (const n of sizes) {
  const o = `ours ${n}`;
  const h = `hono ${n}`;
  const row = [
    n,
    `${med(o, (s) => s.checkMs).toFixed(0)} ms`,
    `${med(h, (s) => s.checkMs).toFixed(0)} ms`,
    (med(o, (s) => s.checkMs) / med(h, (s) => s.checkMs)).toFixed(2),
    med(o, (s) => s.instantiations),
    med(h, (s) => s.instantiations),
    (med(o, (s) => s.instantiations) / med(h, (s) => s.instantiations))
      .toFixed(3),
    med(o, (s) => s.types),
    med(h, (s) => s.types),
    `${med(o, (s) => s.tscCheckS).toFixed(2)} s`,
    `${med(h, (s) => s.tscCheckS).toFixed(2)} s`,
  ];
  console.log(`| ${row.join(" | ")} |`);
}
