// `deno doc` over every export of the package, read from deno.json, so a new
// export needs no edit here:
//   deno run -A _tools/docs.ts lint   `deno doc --lint` (part of `deno task check`)
//   deno run -A _tools/docs.ts html   the API reference in api-docs/ (`deno task docs`)
//   deno run -A _tools/docs.ts html <dir>   the same, into <dir> (tests)
const config = JSON.parse(
  await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
);
const files = Object.values(config.exports as Record<string, string>);
const mode = Deno.args[0];
const output = Deno.args[1] ?? "api-docs";
const args = mode === "lint"
  ? ["doc", "--lint", ...files]
  : mode === "html"
  ? ["doc", "--html", `--name=${config.name}`, `--output=${output}`, ...files]
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

// What every page gets beyond deno doc's output:
// - usage blocks import each export by its bare subpath (`from "fetch-router"`,
//   `from "."`): name the package, as users write it;
// - the module docs link exports on jsr.io: point those links at the local
//   pages, so the front page's map works offline;
// - deno doc's "Symbols" sidebar lists the same few symbols of one module on
//   every page: a list of every module takes its place;
// - on narrow screens, code blocks and tables scroll inside themselves
//   instead of the whole page scrolling sideways.
const JSR_DOC = `https://jsr.io/${config.name}/doc/`;
const NARROW_CSS = `<style>
@media (max-width: 800px) {
  .ddoc, .ddoc #content, .ddoc main, .ddoc section, .ddoc div { min-width: 0; }
  .ddoc pre, .ddoc table, .ddoc .markdown { max-width: 100%; overflow-x: auto; }
  .ddoc pre { white-space: pre; }
  .ddoc code { overflow-wrap: anywhere; }
  .ddoc .toc { display: none; }
  #topnav #searchbar { width: 9rem; min-width: 0; }
  #topnav { height: auto; position: static; }
  #topnav > div { flex-wrap: wrap; min-width: 0; height: auto; row-gap: 0.5rem; }
}
.ddoc nav.modules ul { list-style: none; padding: 0; margin: 0; font-size: 0.85rem; }
.ddoc nav.modules li { margin: 0.15rem 0; }
.ddoc nav.modules a { text-decoration: none; }
.ddoc nav.modules a:hover { text-decoration: underline; }
</style>`;

/** The sidebar list of every export, with hrefs relative to `depth`. */
function modulesNav(depth: number): string {
  const up = "../".repeat(depth);
  const items = Object.keys(config.exports).filter((key) => key !== ".").map(
    (key) => {
      const sub = key.slice(2);
      return `<li><a href="${up}${sub}/index.html">${sub}</a></li>`;
    },
  );
  return `<nav class="modules"><h3>Modules</h3><ul><li><a href="${up}index.html">${config.name}</a></li>${
    items.join("")
  }</ul></nav>`;
}

async function nameImports(dir: URL, root: URL): Promise<void> {
  const subpaths = new Map<string, string>(
    Object.keys(config.exports).map((key) => [
      key === "." ? "." : key.slice(2),
      `${config.name}${key.slice(1)}`,
    ]),
  );
  for await (const entry of Deno.readDir(dir)) {
    const url = new URL(entry.name + (entry.isDirectory ? "/" : ""), dir);
    if (entry.isDirectory) await nameImports(url, root);
    else if (entry.name.endsWith(".html")) {
      const text = await Deno.readTextFile(url);
      const depth = url.pathname.slice(root.pathname.length).split("/").length -
        1;
      const up = "../".repeat(depth);
      const named = text.replace(
        /<nav class="topSymbols">[\s\S]*?<\/nav>/,
        modulesNav(depth),
      ).replace("</head>", `${NARROW_CSS}</head>`).replaceAll(
        new RegExp(`href="${JSR_DOC.replaceAll(".", "\\.")}([^"#]+)"`, "g"),
        (_match, sub: string) => `href="${up}${sub}/index.html"`,
      ).replace(
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
if (code === 0 && mode === "html") {
  const dir = new URL(`${output.replace(/\/$/, "")}/`, `file://${Deno.cwd()}/`);
  await nameImports(dir, dir);
  console.log(`Open ${output}/index.html`);
}
Deno.exit(code);
