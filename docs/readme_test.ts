// Follows README.md literally, as a new user: the quick start and the
// sessions snippet are saved as main.ts in a project of their own and run
// with the commands the README gives. The only change: each port becomes 0
// (a free port), so the test never collides with a running app.

import assert from "node:assert/strict";
import { codeUnder, makeProject, startCommand } from "../_tools/doc_run.ts";

const readme = await Deno.readTextFile(
  new URL("../README.md", import.meta.url),
);

function commandIn(text: string, start: string): string {
  const line = text.split("\n").find((line) => line.startsWith(start));
  if (line === undefined) throw new Error(`README has no "${start}..." line`);
  return line.trim();
}

Deno.test("README quick start runs with its command; show answers 404 Not Found for an unknown id", async () => {
  const project = await makeProject();
  try {
    const code = await codeUnder("README.md", "Quick start");
    assert.match(code, /port: 8080/);
    await Deno.writeTextFile(
      `${project.dir}/main.ts`,
      code.replace("port: 8080", "port: 0"),
    );
    const command = commandIn(readme, "deno run --allow-net=127.0.0.1 main.ts");
    const app = await startCommand(project.dir, command);
    try {
      const found = await fetch(`${app.origin}/posts/1`);
      assert.equal(found.status, 200);
      assert.equal(await found.text(), '{"id":"1","title":"Hello <world>"}');
      const missing = await fetch(`${app.origin}/posts/2`);
      assert.equal(missing.status, 404);
      assert.equal(await missing.text(), "Not Found");
      const list = await fetch(`${app.origin}/posts`);
      assert.deepEqual(await list.json(), [{
        id: "1",
        title: "Hello <world>",
      }]);
      const home = await fetch(`${app.origin}/`);
      assert.equal(await home.text(), '<a href="/posts">Posts</a>');
    } finally {
      await app.stop();
    }
    // The logger's default line, with the size the README shows.
    assert.match(app.output(), /\] GET \/posts\/1 200 34\n/);
    // A body the app builds itself has no length until Deno.serve sends it.
    assert.match(app.output(), /\] GET \/posts\/2 404 -\n/);
  } finally {
    await project.remove();
  }
});

const guide = await Deno.readTextFile(
  new URL("./guide.md", import.meta.url),
);

Deno.test("guide sessions snippet runs with its secret recipe and command; its reset command empties the database", async () => {
  const project = await makeProject();
  try {
    const code = await codeUnder("docs/guide.md", "Sessions");
    assert.match(code, /port: 8101/);
    await Deno.writeTextFile(
      `${project.dir}/main.ts`,
      code.replace("port: 8101", "port: 0"),
    );
    // The secret, made by the guide's own command.
    const recipe = commandIn(guide, 'export SESSION_SECRET="$(');
    const made = await new Deno.Command("sh", {
      args: ["-c", `${recipe} && printf %s "$SESSION_SECRET"`],
      stdout: "piped",
    }).output();
    const secret = new TextDecoder().decode(made.stdout);
    const uuid =
      "[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}";
    assert.match(secret, new RegExp(`^${uuid}${uuid}$`));
    const command = commandIn(
      guide,
      "deno run --unstable-kv --allow-net=127.0.0.1 --allow-env=SESSION_SECRET",
    );
    const visits = async (expected: string[]) => {
      const app = await startCommand(project.dir, command, {
        SESSION_SECRET: secret,
      });
      try {
        let cookie = "";
        for (const text of expected) {
          const response = await fetch(`${app.origin}/`, {
            headers: { cookie },
          });
          assert.equal(await response.text(), text);
          const setCookie = response.headers.get("set-cookie");
          if (setCookie) cookie = setCookie.split(";")[0];
          assert.match(setCookie ?? cookie, /^session=/);
        }
        return cookie;
      } finally {
        await app.stop();
      }
    };
    await visits(["visit 1", "visit 2", "visit 3"]);
    // Where the guide says the database is, and its reset command.
    assert.ok((await Deno.stat(`${project.dir}/sessions.sqlite3`)).isFile);
    const reset = guide.split("\n").find((line) =>
      line.startsWith("rm -f sessions.sqlite3")
    );
    assert.ok(reset, "the guide has the reset command");
    const { success } = await new Deno.Command("sh", {
      args: ["-c", reset],
      cwd: project.dir,
    }).output();
    assert.ok(success, reset);
    await assert.rejects(
      Deno.stat(`${project.dir}/sessions.sqlite3`),
      Deno.errors.NotFound,
    );
  } finally {
    await project.remove();
  }
});

Deno.test("README checkout recipe: links runs the quick start against a clone, without JSR", async () => {
  // As the README lays it out: the clone (here, this checkout) beside a
  // project folder holding only the README's deno.json and main.ts.
  const parent = await Deno.makeTempDir({ prefix: "fetchkit-links-" });
  try {
    await Deno.symlink(
      new URL("..", import.meta.url).pathname.replace(/\/$/, ""),
      `${parent}/toolkit`,
    );
    await Deno.mkdir(`${parent}/hello`);
    const config = /### Without JSR[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)
      ?.[1];
    assert.ok(config, "README has the links deno.json");
    assert.match(config, /"links": \["\.\.\/toolkit"\]/);
    await Deno.writeTextFile(`${parent}/hello/deno.json`, config);
    const code = await codeUnder("README.md", "Quick start");
    await Deno.writeTextFile(
      `${parent}/hello/main.ts`,
      code.replace("port: 8080", "port: 0"),
    );
    const command = commandIn(readme, "deno run --allow-net=127.0.0.1 main.ts");
    const app = await startCommand(`${parent}/hello`, command);
    try {
      const found = await fetch(`${app.origin}/posts/1`);
      assert.equal(await found.text(), '{"id":"1","title":"Hello <world>"}');
    } finally {
      await app.stop();
    }
  } finally {
    await Deno.remove(parent, { recursive: true });
  }
});

Deno.test("README's Guide list links every section of docs/guide.md", async () => {
  const guide = await Deno.readTextFile(
    new URL("./guide.md", import.meta.url),
  );
  const headings = [
    ...guide.replace(/```[\s\S]*?```/g, "")
      .matchAll(/^## (.+)$/gm),
  ].map((m) => m[1].trim());
  assert.ok(headings.length > 0, "docs/guide.md has no ## headings");
  const list = /^## Guide\n([\s\S]*?)^## /m.exec(readme)?.[1];
  assert.ok(list, "README has a ## Guide section");
  for (const heading of headings) {
    const anchor = heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "")
      .replace(/ /g, "-");
    assert.ok(
      list.includes(`(docs/guide.md#${anchor})`),
      `README's Guide list does not link "## ${heading}" (docs/guide.md#${anchor})`,
    );
  }
});

/** The README's `deno.json` for `links`, and a parent folder holding the clone. */
async function linkedProject(): Promise<
  { parent: string; hello: string; remove(): Promise<void> }
> {
  const parent = await Deno.makeTempDir({ prefix: "fetchkit-links-" });
  await Deno.symlink(
    new URL("..", import.meta.url).pathname.replace(/\/$/, ""),
    `${parent}/toolkit`,
  );
  await Deno.mkdir(`${parent}/hello`);
  const config = /### Without JSR[\s\S]*?```json\n([\s\S]*?)```/.exec(readme)
    ?.[1];
  assert.ok(config, "README has the links deno.json");
  await Deno.writeTextFile(`${parent}/hello/deno.json`, config);
  return {
    parent,
    hello: `${parent}/hello`,
    remove: () => Deno.remove(parent, { recursive: true }),
  };
}

/** Bare specifiers the published code imports (`npm:` names, no subpath). */
async function publishedImports(): Promise<Set<string>> {
  const { stdout, stderr, success } = await new Deno.Command(
    Deno.execPath(),
    {
      args: ["publish", "--dry-run", "--allow-dirty", "--no-check"],
      cwd: new URL("..", import.meta.url),
      env: { NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    },
  ).output();
  // The file list is on stderr; both are read, whichever it moves to.
  const text = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  assert.ok(success, text);
  const names = new Set<string>();
  const files = [...text.matchAll(
    /^\s+(file:\/\/\S+\.ts)\b/gm,
  )].map((m) => new URL(m[1]));
  for (const file of files) {
    // Import statements only: a doc comment's example may import anything.
    const code = (await Deno.readTextFile(file)).replace(
      /\/\*[\s\S]*?\*\//g,
      "",
    );
    for (
      const [, specifier] of code.matchAll(
        /^(?:import|export)\b[^;]*?\bfrom\s+"([^".][^"]*)"|\bimport\(\s*"([^".][^"]*)"\s*\)/gm,
      )
    ) {
      if (specifier === undefined || /^(node|jsr|npm):/.test(specifier)) {
        continue;
      }
      const parts = specifier.split("/");
      names.add(
        specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0],
      );
    }
  }
  return names;
}

Deno.test("README checkout recipe: a linking project's deno.lock gets the package's runtime dependencies, no development ones", async () => {
  const project = await linkedProject();
  try {
    const code = await codeUnder("README.md", "Quick start");
    await Deno.writeTextFile(`${project.hello}/main.ts`, code);
    const { success, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["cache", "main.ts"],
      cwd: project.hello,
      env: { NO_COLOR: "1" },
      stdout: "null",
      stderr: "piped",
    }).output();
    assert.ok(success, new TextDecoder().decode(stderr));
    const lock = JSON.parse(
      await Deno.readTextFile(`${project.hello}/deno.lock`),
    );
    const links: Record<string, { dependencies?: string[] }> =
      lock.workspace?.links ?? {};
    const linked = Object.values(links).flatMap((link) =>
      link.dependencies ?? []
    ).map((dependency) =>
      dependency.replace(/^npm:/, "").replace(/@[^@]*$/, "")
    );
    assert.ok(linked.includes("@noble/hashes"), JSON.stringify(lock, null, 2));
    const used = await publishedImports();
    assert.ok(used.has("@noble/hashes"), [...used].join(", "));
    for (const name of linked) {
      assert.ok(
        used.has(name),
        `${name} is in a linking user's deno.lock, but no published module imports it (a development dependency belongs in package.json)`,
      );
    }
    for (const dev of ["playwright-core", "hono", "redis", "bcrypt", "zod"]) {
      assert.ok(!linked.includes(dev), `${dev} reached the user's lock file`);
    }
  } finally {
    await project.remove();
  }
});

/** Runs `program args` in `dir` until it prints "Listening on <origin>/". */
async function startProgram(
  program: string,
  args: string[],
  dir: string,
): Promise<{ origin: string; stop(): Promise<string> }> {
  const child = new Deno.Command(program, {
    args,
    cwd: dir,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
    }
  };
  const done = Promise.all([collect(child.stdout), collect(child.stderr)]);
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch {
      // already gone
    }
    await child.status;
    await done;
    return text;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const origin = /Listening on (http:\/\/[^/\s]+)\//.exec(text)?.[1];
    if (origin !== undefined) return { origin, stop };
    const exited = await Promise.race([
      child.status.then(() => true),
      new Promise<false>((resolve) => setTimeout(resolve, 50, false)),
    ]);
    if (exited || Date.now() > deadline) {
      throw new Error(
        `${program} ${args.join(" ")} did not start:\n${await stop()}`,
      );
    }
  }
}

const REQUIRE_ALL = Deno.env.get("CI") !== undefined ||
  Deno.env.get("TOOLKIT_REQUIRE_ALL") !== undefined;

/** The shell block that follows `marker` in the README, one command a line. */
function shellAfter(marker: string): string[] {
  const block = new RegExp(
    `${
      marker.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
    }[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\``,
  ).exec(readme)?.[1];
  assert.ok(block, `README has a sh block after "${marker}"`);
  return block.trim().split("\n").map((line) => line.replace(/\s+#.*$/, ""));
}

for (const runtime of ["node", "bun"] as const) {
  Deno.test(`README Node and Bun recipe from a checkout, as written in an empty folder: bundled, main.mjs serves on ${runtime} at 127.0.0.1`, async (t) => {
    const { bunBinary, which } = await import(
      "../_tools/runtimes/binaries.ts"
    );
    const binary = runtime === "bun" ? await bunBinary() : await which("node");
    if (binary === undefined) {
      if (REQUIRE_ALL) {
        throw new Error(`${runtime} is missing (required under CI)`);
      }
      console.log(`skipped: no ${runtime} here`);
      return;
    }
    // Only the README's deno.json and main.mjs: no node_modules, no
    // package.json, nothing else a person would not have.
    const project = await linkedProject();
    try {
      const code =
        /Save this as `main\.mjs`:\n\n(?:<!--.*-->\n)?```js\n([\s\S]*?)```/
          .exec(readme)?.[1];
      assert.ok(code, "README has a main.mjs block");
      // Installing from JSR (unreachable here) is what the README says.
      const install = runtime === "bun" ? "bunx jsr add" : "npx jsr add";
      assert.match(readme, new RegExp(`^${install} @fetchkit/toolkit\\b`, "m"));
      assert.match(
        code,
        /serve\(router\.fetch, \{ hostname: "127\.0\.0\.1", port: 8081 \}\)/,
      );
      await Deno.writeTextFile(
        `${project.hello}/main.mjs`,
        code.replace("port: 8081", "port: 0"),
      );
      const [bundle, run, ...rest] = shellAfter("let Deno bundle it");
      assert.deepEqual(rest, [], "the recipe is two commands");
      assert.match(bundle, /^deno bundle /);
      const built = await new Deno.Command(Deno.execPath(), {
        args: bundle.split(/\s+/).slice(1),
        cwd: project.hello,
        env: { NO_COLOR: "1" },
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(built.success, new TextDecoder().decode(built.stderr));
      assert.equal(run, "node app.mjs");
      assert.deepEqual(
        [...Deno.readDirSync(project.hello)].map((entry) => entry.name).sort(),
        ["app.mjs", "deno.json", "deno.lock", "main.mjs"],
      );
      const app = await startProgram(binary, ["app.mjs"], project.hello);
      let output = "";
      try {
        assert.match(app.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
        await t.step("show answers the post", async () => {
          const found = await fetch(`${app.origin}/posts/1`);
          assert.equal(found.status, 200);
          assert.equal(
            await found.text(),
            '{"id":"1","title":"Hello <world>"}',
          );
        });
        await t.step("an unknown id is 404 Not Found", async () => {
          const missing = await fetch(`${app.origin}/posts/2`);
          assert.equal(missing.status, 404);
          assert.equal(await missing.text(), "Not Found");
        });
      } finally {
        output = await app.stop();
      }
      assert.match(output, /GET \/posts\/1 200 34/);
    } finally {
      await project.remove();
    }
  });
}

Deno.test("README's module table has a row for every export of deno.json", async () => {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("../deno.json", import.meta.url)),
  );
  const readme = await Deno.readTextFile(
    new URL("../README.md", import.meta.url),
  );
  for (const subpath of Object.keys(config.exports)) {
    if (subpath === ".") continue;
    const row = new RegExp(
      `^\\| \`${config.name}${subpath.slice(1).replaceAll(".", "\\.")}\` +\\|`,
      "m",
    );
    assert.match(readme, row, `no README row for ${subpath}`);
  }
});
