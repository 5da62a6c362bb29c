// main.ts as users run it: it says where it listens and where files go,
// and removes that folder when stopped.
import assert from "node:assert/strict";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

function start(port: number) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      MAIN,
    ],
    env: { PORT: String(port), NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let text = "";
  const pumps = [child.stdout, child.stderr].map(async (stream) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
      text += chunk;
    }
  });
  return { child, output: () => text, done: Promise.all(pumps) };
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test(`uploads main.ts: names its port and folder, and removes the folder on ${signal}`, async () => {
    const { child, output, done } = start(0);
    const deadline = Date.now() + 30_000;
    while (!/Uploads are saved in (\S+)/.test(output())) {
      assert.ok(Date.now() < deadline, `did not start: ${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const port = /Listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(output())
      ?.[1];
    assert.ok(port, output());
    const directory = /Uploads are saved in (\S+)/.exec(output())![1];
    assert.match(directory, /fetchkit-uploads-/);
    const body = new FormData();
    body.append("files", new File(["hello"], "a.txt"));
    const posted = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      body,
      redirect: "manual",
    });
    await posted.body?.cancel();
    assert.equal(posted.status, 303);
    assert.equal([...Deno.readDirSync(directory)].length, 1);
    child.kill(signal);
    const status = await child.status;
    await done;
    assert.equal(status.code, 0, output());
    assert.throws(() => Deno.statSync(directory), Deno.errors.NotFound);
  });
}

Deno.test("uploads main.ts: a taken port is one line, and no folder is left", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const before = new Set(
    [...Deno.readDirSync("/tmp")].map((entry) => entry.name),
  );
  try {
    const { child, output, done } = start(listener.addr.port);
    const status = await child.status;
    await done;
    assert.equal(status.code, 1);
    const hint = new RegExp(
      `^Port ${listener.addr.port} is in use\\. Choose another: PORT=(\\d+) `,
      "m",
    ).exec(output());
    assert.ok(hint, output());
    Deno.listen({ hostname: "127.0.0.1", port: Number(hint[1]) }).close();
    assert.doesNotMatch(output(), /\n {4}at /);
    const left = [...Deno.readDirSync("/tmp")].filter((entry) =>
      entry.name.startsWith("fetchkit-uploads-") && !before.has(entry.name)
    );
    assert.deepEqual(left, []);
  } finally {
    listener.close();
  }
});
