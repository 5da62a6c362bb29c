// methodOverride() peeks at the body without request.clone(): on Deno a clone
// of a Deno.serve request reads its signal and prints "request.signal aborts
// on successful responses (legacy behavior)". The app runs in a process of its
// own, so the warning (printed once per process) is its stderr.
import assert from "node:assert/strict";

Deno.test("methodOverride() under Deno.serve: the override and the whole body reach the handler, and nothing is printed to stderr", async () => {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      new URL("./testdata/method_override_server.ts", import.meta.url).pathname,
    ],
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const errors = new TextDecoder().decode(stderr);
  assert.equal(code, 0, errors);
  assert.equal(new TextDecoder().decode(stdout).trim(), "200 put 1");
  assert.equal(errors, "");
});
