// A new user's first `deno task dev` fetches bcrypt from npm into an empty
// Deno cache. Deno would print a yellow "Ignored build scripts ... npm:bcrypt"
// box asking to change the config; deno.json's `allowScripts` denies that
// script (bcrypt ships prebuilt binaries its loader finds), so nothing is
// printed and bcrypt still hashes.
import assert from "node:assert/strict";

Deno.test("first run with an empty Deno cache: no 'Ignored build scripts' box, and bcrypt works", async () => {
  const denoDir = await Deno.makeTempDir({ prefix: "fetchkit-deno-dir-" });
  // A project with this repository's npm settings and bcrypt alone, so the
  // empty cache fetches three packages, not every development dependency.
  const project = await Deno.makeTempDir({ prefix: "fetchkit-first-run-" });
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  );
  const { devDependencies } = JSON.parse(
    await Deno.readTextFile(new URL("../package.json", import.meta.url)),
  );
  await Deno.writeTextFile(
    `${project}/deno.json`,
    JSON.stringify({
      nodeModulesDir: config.nodeModulesDir,
      allowScripts: config.allowScripts,
      imports: { bcrypt: `npm:bcrypt@${devDependencies.bcrypt}` },
    }),
  );
  try {
    const { success, stderr } = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        "--ext=ts",
        'import bcrypt from "bcrypt"; console.log(bcrypt.compareSync("a", bcrypt.hashSync("a", 4)));',
      ],
      cwd: project,
      env: { DENO_DIR: denoDir, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output().then((output) => ({
      success: output.success &&
        new TextDecoder().decode(output.stdout).trim() === "true",
      stderr: new TextDecoder().decode(output.stderr),
    }));
    assert.ok(success, stderr);
    assert.match(stderr, /Download .*bcrypt/, "bcrypt came from npm");
    assert.doesNotMatch(stderr, /Ignored build scripts|lifecycle scripts/);
  } finally {
    await Deno.remove(denoDir, { recursive: true });
    await Deno.remove(project, { recursive: true });
  }
});
