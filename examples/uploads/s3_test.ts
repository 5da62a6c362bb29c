// Two servers of the uploads example, each its own `main.ts` process with
// STORAGE=s3, behind one bucket of a real S3 gateway (Ceph, from
// _tools/ceph.ts): each lists and serves the other's uploads.
import assert from "node:assert/strict";
import { cephOrSkip } from "../../_tools/ceph.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;

function start(env: Record<string, string>) {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-read",
      "--allow-write",
      "--allow-env",
      MAIN,
    ],
    env: { ...env, PORT: "0", NO_COLOR: "1" },
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
  const url = (async () => {
    const deadline = Date.now() + 30_000;
    while (!/Listening on (http:\/\/\S+)\//.test(text)) {
      assert.ok(Date.now() < deadline, `did not start: ${text}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return /Listening on (http:\/\/\S+)\//.exec(text)![1];
  })();
  return {
    url,
    output: () => text,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await Promise.all(pumps);
    },
  };
}

Deno.test("uploads example on S3: two servers behind one bucket serve each other's uploads", async () => {
  const ceph = await cephOrSkip("the uploads example on S3");
  if (ceph === undefined) return;
  const servers: ReturnType<typeof start>[] = [];
  try {
    await ceph.createBucket("uploads");
    const env = {
      STORAGE: "s3",
      S3_ENDPOINT: ceph.endpoint,
      S3_BUCKET: "uploads",
      S3_REGION: ceph.region,
      S3_ACCESS_KEY_ID: ceph.accessKeyId,
      S3_SECRET_ACCESS_KEY: ceph.secretAccessKey,
    };
    servers.push(start(env), start(env));
    const [a, b] = await Promise.all(servers.map((server) => server.url));
    assert.match(
      servers[0].output(),
      /Uploads are saved in the S3 bucket uploads at http:\/\/127\.0\.0\.1:\d+/,
    );

    // An upload to each server.
    for (
      const [url, name, text] of [[a, "to-a.txt", "sent to A"], [
        b,
        "to-b.txt",
        "sent to B",
      ]]
    ) {
      const body = new FormData();
      body.append("files", new File([text], name, { type: "text/plain" }));
      const posted = await fetch(`${url}/`, {
        method: "POST",
        body,
        redirect: "manual",
      });
      await posted.body?.cancel();
      assert.equal(posted.status, 303);
    }
    // Each lists both, and downloads the other's.
    for (
      const [url, other, text] of [[a, "to-b.txt", "sent to B"], [
        b,
        "to-a.txt",
        "sent to A",
      ]]
    ) {
      const page = await (await fetch(`${url}/`)).text();
      assert.match(
        page,
        /to-a\.txt<\/a> <span class="meta">\(9 bytes, text\/plain\)/,
      );
      assert.match(page, /to-b\.txt<\/a>/);
      const href = new RegExp(
        `href="(/files/[^"]+)" download>${other.replace(".", "\\.")}`,
      ).exec(page)![1];
      const download = await fetch(`${url}${href}`);
      assert.equal(download.status, 200);
      assert.equal(await download.text(), text);
    }
  } finally {
    for (const server of servers) await server.stop();
    await ceph.stop();
  }
});
