// Follows README.md literally, as a new user: the quick start and the
// sessions snippet are saved as main.ts in a project of their own and run
// with the commands the README gives. The only change: port 8000 becomes 0
// (a free port), so the test never collides with a running app.

import assert from "node:assert/strict";
import { codeUnder, makeProject, startCommand } from "./_test_doc_run.ts";

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
    assert.match(code, /port: 8000/);
    await Deno.writeTextFile(
      `${project.dir}/main.ts`,
      code.replace("port: 8000", "port: 0"),
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

Deno.test("README sessions snippet runs with its secret recipe and command", async () => {
  const project = await makeProject();
  try {
    const code = await codeUnder("README.md", "Sessions");
    await Deno.writeTextFile(
      `${project.dir}/main.ts`,
      code.replace("port: 8000", "port: 0"),
    );
    // The secret, made by the README's own command.
    const recipe = commandIn(readme, 'export SESSION_SECRET="$(');
    const evalCode = /deno eval '([^']+)'/.exec(recipe)![1];
    const made = await new Deno.Command(Deno.execPath(), {
      args: ["eval", evalCode],
      stdout: "piped",
    }).output();
    const secret = new TextDecoder().decode(made.stdout).trim();
    assert.equal(atob(secret).length, 32);
    const command = commandIn(
      readme,
      "deno run --unstable-kv --allow-net=127.0.0.1 --allow-env=SESSION_SECRET main.ts",
    );
    // Deno.openKv() with no path keeps its file under DENO_DIR, by the
    // script's URL: a fresh project folder gets a fresh database.
    const app = await startCommand(project.dir, command, {
      SESSION_SECRET: secret,
    });
    try {
      let cookie = "";
      for (const expected of ["visit 1", "visit 2", "visit 3"]) {
        const response = await fetch(`${app.origin}/`, { headers: { cookie } });
        assert.equal(await response.text(), expected);
        const setCookie = response.headers.get("set-cookie");
        if (setCookie) cookie = setCookie.split(";")[0];
        assert.match(setCookie ?? cookie, /^session=/);
      }
    } finally {
      await app.stop();
    }
  } finally {
    await project.remove();
  }
});
