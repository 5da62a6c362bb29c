// `deno doc` over every export of the package, read from deno.json, so a new
// export needs no edit here:
//   deno run -A _tools/docs.ts lint   `deno doc --lint` (part of `deno task check`)
//   deno run -A _tools/docs.ts html   the API reference in api-docs/ (`deno task docs`)
const config = JSON.parse(
  await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
);
const files = Object.values(config.exports as Record<string, string>);
const mode = Deno.args[0];
const args = mode === "lint"
  ? ["doc", "--lint", ...files]
  : mode === "html"
  ? ["doc", "--html", `--name=${config.name}`, "--output=api-docs", ...files]
  : undefined;
if (args === undefined) {
  console.error("usage: _tools/docs.ts lint | html");
  Deno.exit(2);
}
const { code } = await new Deno.Command("deno", {
  args,
  stdout: "inherit",
  stderr: "inherit",
}).output();
if (code === 0 && mode === "html") {
  await nameImports(new URL("../api-docs/", import.meta.url));
  console.log("Open api-docs/index.html");
}

// deno doc's usage blocks import each export by its bare subpath
// (`from "fetch-router"`, `from "."`): name the package, as users write it.
async function nameImports(dir: URL): Promise<void> {
  const subpaths = new Map<string, string>(
    Object.keys(config.exports).map((key) => [
      key === "." ? "." : key.slice(2),
      `${config.name}${key.slice(1)}`,
    ]),
  );
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) await nameImports(url);
    else if (entry.name.endsWith(".html")) {
      const text = await Deno.readTextFile(url);
      const named = text.replace(
        /from &quot;([^&]+)&quot;/g,
        (match, subpath: string) => {
          const name = subpaths.get(subpath);
          return name === undefined ? match : `from &quot;${name}&quot;`;
        },
      );
      if (named !== text) await Deno.writeTextFile(url, named);
    }
  }
}
Deno.exit(code);
