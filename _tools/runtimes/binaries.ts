// Where the runtimes' binaries are: Bun from the npm package that
// `install.sh` puts in `node_modules` (its postinstall does not run), else
// a command on PATH. Used by the runtime tests and the Node/Bun benchmarks.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "./bundle.ts";

const HERE = join(ROOT, "_tools/runtimes");

/** The path of `command` on PATH, or `undefined`. */
export async function which(command: string): Promise<string | undefined> {
  try {
    const { code, stdout } = await new Deno.Command("sh", {
      args: ["-c", `command -v ${command}`],
      stdout: "piped",
      stderr: "null",
    }).output();
    return code === 0 ? new TextDecoder().decode(stdout).trim() : undefined;
  } catch {
    return undefined;
  }
}

/** Bun's binary: the npm package's (baseline build first), else on PATH. */
export function bunBinary(): Promise<string | undefined> {
  const os = Deno.build.os === "darwin" ? "darwin" : "linux";
  const arch = Deno.build.arch === "aarch64" ? "aarch64" : "x64";
  for (const suffix of ["-baseline", ""]) {
    const path = join(
      HERE,
      `node_modules/@oven/bun-${os}-${arch}${suffix}/bin/bun`,
    );
    if (existsSync(path)) return Promise.resolve(path);
  }
  return which("bun");
}

let installed: Promise<boolean> | undefined;

/**
 * `node_modules` here with every package of `package.json` (the Node
 * adapter, `@deno/kv`, `bcrypt`, Bun, workerd): runs `install.sh` once when
 * one is missing (a fresh clone, or a package added since); `false` when
 * it cannot (no npm, registry unreachable).
 */
export function dependencies(): Promise<boolean> {
  return installed ??= (async () => {
    const { dependencies } = JSON.parse(
      await Deno.readTextFile(join(HERE, "package.json")),
    ) as { dependencies: Record<string, string> };
    // Every package of package.json, so one added there is installed too.
    if (
      Object.keys(dependencies).every((name) =>
        existsSync(join(HERE, "node_modules", name, "package.json"))
      )
    ) return true;
    if (await which("npm") === undefined) return false;
    const { code } = await new Deno.Command("bash", {
      args: [join(HERE, "install.sh")],
      stdout: "null",
      stderr: "inherit",
    }).output();
    return code === 0;
  })();
}
