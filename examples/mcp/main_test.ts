// The README's recipe, run as written: its command starts the server (on a
// free port instead of 8020), its client block runs as a user's program in
// a project of its own, and the curl lines' answers are checked over HTTP.
import assert from "node:assert/strict";
import { makeProject, startCommand } from "../../_tools/doc_run.ts";

const repo = new URL("../../", import.meta.url).pathname;
const TOKEN = "0123456789abcdef".repeat(4);

async function readmeCommand(): Promise<string> {
  const readme = await Deno.readTextFile(`${repo}examples/mcp/README.md`);
  const line = readme.split("\n").find((l) =>
    l.includes("deno run") && l.endsWith("examples/mcp/main.ts")
  );
  assert.ok(line, "README has the run command");
  // `MCP_TOKEN=$(openssl rand -hex 32) deno run ...`: the token comes from env.
  return line.slice(line.indexOf("deno run"));
}

/** The README's client block (marked `ignore` for `deno test --doc`). */
async function clientBlock(): Promise<string> {
  const readme = await Deno.readTextFile(`${repo}examples/mcp/README.md`);
  const start = readme.indexOf("```ts ignore\n");
  assert.ok(start !== -1, "README has the client block");
  const from = start + "```ts ignore\n".length;
  return readme.slice(from, readme.indexOf("\n```", from));
}

Deno.test("mcp example README: the command serves, the client block adds and lists a note", async () => {
  const server = await startCommand(repo, await readmeCommand(), {
    PORT: "0",
    MCP_TOKEN: TOKEN,
  });
  const project = await makeProject();
  try {
    const port = new URL(server.origin).port;
    const code = (await clientBlock())
      .replaceAll("127.0.0.1:8020", `127.0.0.1:${port}`);
    await Deno.writeTextFile(`${project.dir}/main.ts`, code);
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--allow-all", "main.ts"],
      cwd: project.dir,
      env: { NO_COLOR: "1", MCP_TOKEN: TOKEN },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.equal(run.code, 0, stderr);
    assert.equal(
      new TextDecoder().decode(run.stdout).trim(),
      `[ { type: "text", text: "#1 Milk" } ]`,
    );

    // The curl lines.
    const refused = await fetch(`${server.origin}/mcp`, { method: "POST" });
    await refused.body?.cancel();
    assert.equal(
      refused.headers.get("www-authenticate"),
      `Bearer realm="notes", resource_metadata="${server.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
    const metadata = await (await fetch(
      `${server.origin}/.well-known/oauth-protected-resource/mcp`,
    )).json();
    assert.equal(metadata.resource, `${server.origin}/mcp`);
    assert.deepEqual(metadata.authorization_servers, [
      `http://127.0.0.1:${port}`,
    ]);
  } finally {
    await project.remove();
    await server.stop();
  }
});

Deno.test("mcp example: without MCP_TOKEN it refuses to start and says how to make one", async () => {
  const command = (await readmeCommand()).split(/\s+/);
  const result = await new Deno.Command(Deno.execPath(), {
    args: command.slice(1),
    cwd: repo,
    env: { NO_COLOR: "1", PORT: "0", MCP_TOKEN: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(result.code, 1);
  assert.match(
    new TextDecoder().decode(result.stderr),
    /Set MCP_TOKEN to a secret of at least 32 characters: MCP_TOKEN=\$\(openssl rand -hex 32\)/,
  );
});
