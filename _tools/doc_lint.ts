// `deno doc --lint` on every export of the package, read from deno.json, so
// a new export is linted without editing the check task.
const config = JSON.parse(
  await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
);
const files = Object.values(config.exports as Record<string, string>);
const { code } = await new Deno.Command("deno", {
  args: ["doc", "--lint", ...files],
  stdout: "inherit",
  stderr: "inherit",
}).output();
Deno.exit(code);
