// `deno task dev` (a file watcher around serve()) ends on SIGTERM: serve()
// shuts down, and the watcher ends too instead of waiting for a file
// change. Deno-only (it spawns `deno task dev`).
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test({
  name:
    "deno task dev: SIGTERM ends serve() and the file watcher (no waiting for a file change)",
  ignore: Deno.build.os === "windows",
  async fn() {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["task", "dev"],
      cwd: ROOT,
      env: { PORT: "0", NO_COLOR: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // Its own process group, so that the watcher under `deno task` can
      // be cut with it when the test fails.
      detached: true,
    }).spawn();
    let text = "";
    const decoder = new TextDecoder();
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      for await (const chunk of stream) text += decoder.decode(chunk);
    };
    const pumped = Promise.all([pump(child.stdout), pump(child.stderr)]);
    let exited = false;
    const status = child.status.then((status) => {
      exited = true;
      return status;
    });
    try {
      for (let i = 0; i < 600 && !/Listening on http/.test(text); i++) {
        await delay(100);
      }
      assert.match(text, /Listening on http/, text);
      child.kill("SIGTERM");
      for (let i = 0; i < 100 && !exited; i++) await delay(100);
      assert.ok(
        exited,
        `still running 10 s after SIGTERM:\n${text.slice(-1000)}`,
      );
      assert.doesNotMatch(text, /Restarting on file change/);
    } finally {
      if (!exited) Deno.kill(-child.pid, "SIGKILL");
      await status;
      await pumped;
    }
  },
});
