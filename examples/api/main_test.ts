// main.ts as users run it: listens on 127.0.0.1, keeps notes in the KV file.
import assert from "node:assert/strict";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const TOKEN_SCRIPT = new URL("./token.ts", import.meta.url).pathname;
const SECRET = "main-test-secret-for-the-notes-api-0123456789";

Deno.test("api main.ts: serves the notes API on a KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "api_main_" });
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--unstable-kv",
      "--allow-net=127.0.0.1",
      "--allow-env=PORT,DENO_KV_PATH,API_JWT_SECRET,DENO_ENV",
      `--allow-read=${dir}`,
      `--allow-write=${dir}`,
      MAIN,
    ],
    env: {
      PORT: "0",
      DENO_KV_PATH: `${dir}/notes.sqlite`,
      API_JWT_SECRET: SECRET,
      NO_COLOR: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  let stderr = "";
  const pumps = [child.stdout, child.stderr].map(async (stream, index) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      if (index === 1) stderr += chunk;
    }
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!/Listening on http:\/\/127\.0\.0\.1:(\d+)\//.test(text)) {
      assert.ok(Date.now() < deadline, `did not start: ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const port = /127\.0\.0\.1:(\d+)/.exec(text)![1];
    // token.ts prints a token main.ts accepts.
    const printed = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-env=API_JWT_SECRET,DENO_ENV",
        TOKEN_SCRIPT,
        "ada",
        "10m",
      ],
      env: { API_JWT_SECRET: SECRET, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(printed.success, new TextDecoder().decode(printed.stderr));
    const token = new TextDecoder().decode(printed.stdout).trim();
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/);
    const anonymous = await fetch(`http://127.0.0.1:${port}/notes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Hello" }),
    });
    assert.equal(anonymous.status, 401);
    await anonymous.body?.cancel();
    const created = await fetch(`http://127.0.0.1:${port}/notes`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ title: "Hello" }),
    });
    assert.equal(created.status, 201);
    assert.equal((await created.json()).title, "Hello");
    assert.match(text, /notes in .*notes\.sqlite/);
    // A create with an Idempotency-Key, retried, and a cached list.
    for (let i = 0; i < 2; i++) {
      const keyed = await fetch(`http://127.0.0.1:${port}/notes`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${token}`,
          "idempotency-key": "main-test-key",
        },
        body: JSON.stringify({ title: "Once" }),
      });
      assert.equal(keyed.status, 201);
      await keyed.body?.cancel();
    }
    for (let i = 0; i < 2; i++) {
      const list = await fetch(`http://127.0.0.1:${port}/notes`);
      assert.equal(list.status, 200);
      await list.body?.cancel();
    }
    // Nothing on stderr: no runtime warning (Deno prints
    // "Deno.serve: request.signal aborts on successful responses" when a
    // request's signal is read, as request.clone() does), no error.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(stderr, "", "the server wrote to stderr");
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Promise.all(pumps);
    await Deno.remove(dir, { recursive: true });
  }
});
