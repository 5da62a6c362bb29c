// Test helper: a server script whose Deno KV file lives on a real 1 MB tmpfs,
// mounted in a user and mount namespace with `unshare` (no privileges
// needed), so SQLite answers "database or disk is full". The script gets the
// KV path as its argument and prints `listening <port>` once it serves.

/** Whether `unshare -rm mount -t tmpfs` works here (a notice when not). */
export async function fullDiskOrSkip(what: string): Promise<boolean> {
  try {
    const dir = await Deno.makeTempDir();
    const { success } = await new Deno.Command("unshare", {
      args: ["-rm", "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir],
      stdout: "null",
      stderr: "null",
    }).output();
    await Deno.remove(dir);
    if (success) return true;
  } catch {
    // no unshare
  }
  console.log(
    `skipping ${what}: \`unshare -rm mount -t tmpfs\` is not allowed here`,
  );
  return false;
}

/** A server on a full disk: its origin, and `stop()` giving its stderr. */
export interface FullDiskServer {
  origin: string;
  stop(): Promise<string>;
}

/** Starts `script` with its KV file on a fresh 1 MB tmpfs. */
export async function startOnFullDisk(
  script: URL,
  prefix: string,
): Promise<FullDiskServer> {
  const dir = await Deno.makeTempDir({ prefix });
  const child = new Deno.Command("unshare", {
    args: [
      "-rm",
      "sh",
      "-c",
      'mount -t tmpfs -o size=1m tmpfs "$1" && exec "$2" run --unstable-kv --allow-all "$3" "$1/kv.sqlite"',
      "sh",
      dir,
      Deno.execPath(),
      script.pathname,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  const logs = new Response(child.stderr).text();
  const stop = async () => {
    child.kill("SIGTERM");
    await child.status;
    await lines.cancel();
    const log = await logs;
    await Deno.remove(dir, { recursive: true });
    return log;
  };
  let output = "";
  while (!output.includes("\n")) {
    const { value, done } = await lines.read();
    if (done) break;
    output += value;
  }
  const port = /listening (\d+)/.exec(output)?.[1];
  if (port === undefined) {
    await stop();
    throw new Error(`server did not start: ${output}`);
  }
  return { origin: `http://127.0.0.1:${port}`, stop };
}
