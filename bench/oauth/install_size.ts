// Install size of what sign-in adds, as npm installs it: each package
// with its whole dependency tree, in an empty folder
// (`npm install --ignore-scripts --no-audit --no-fund`), measured with
// `du` (apparent bytes) and counted in packages.
//
//   deno run -A bench/oauth/install_size.ts
//
// jose is already a runtime dependency of the toolkit (jwt-middleware), so
// createOAuthClient() adds nothing to an install; oauth4webapi is what the
// alternative would add; oidc-provider is a test-only dependency.
const PACKAGES = ["jose@6.2.17", "oauth4webapi@3.8.8", "oidc-provider@9.13.3"];

async function run(cmd: string, args: string[], cwd: string): Promise<string> {
  const { code, stdout, stderr } = await new Deno.Command(cmd, {
    args,
    cwd,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(new TextDecoder().decode(stderr));
  return new TextDecoder().decode(stdout);
}

console.log("| package | packages installed | size on disk (apparent) |");
console.log("| --- | --- | --- |");
for (const spec of PACKAGES) {
  const dir = await Deno.makeTempDir({ prefix: "oauth-size-" });
  try {
    await Deno.writeTextFile(`${dir}/package.json`, "{}");
    await run("npm", [
      "install",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--save-exact",
      spec,
    ], dir);
    const bytes = Number(
      (await run("du", ["-sb", "node_modules"], dir)).split("\t")[0],
    );
    const list = JSON.parse(
      await run("npm", ["ls", "--all", "--json"], dir),
    );
    const names = new Set<string>();
    const walk = (deps: Record<string, { dependencies?: object }> = {}) => {
      for (const [name, dep] of Object.entries(deps)) {
        names.add(name);
        walk(dep.dependencies as Record<string, { dependencies?: object }>);
      }
    };
    walk(list.dependencies);
    console.log(
      `| ${spec} | ${names.size} | ${(bytes / 1024).toFixed(0)} KiB |`,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}
let own = 0;
for await (
  const entry of Deno.readDir(new URL("../../oauth/", import.meta.url))
) {
  if (entry.name.endsWith(".ts") && !/_test/.test(entry.name)) {
    own +=
      (await Deno.stat(new URL(`../../oauth/${entry.name}`, import.meta.url)))
        .size;
  }
}
console.log(
  `| oauth/ (this module's own source, TypeScript) | 0 | ${
    (own / 1024).toFixed(0)
  } KiB |`,
);
