/**
 * `deno task dev`'s watcher: runs `deno run <args>` and runs it again
 * when a source file changes, as `deno run --watch` does, but as a
 * process of its own, so that a signal ends it too.
 *
 * Why not `--watch`: Deno's watcher runs the program inside its own
 * process. `serve()` answers `SIGTERM` with a graceful shutdown, after
 * which the program ends and `--watch` waits for a file change instead of
 * exiting ("Watcher Process finished ... Restarting on file change"), so
 * `timeout`, process managers and editors could not stop it. Here
 * `SIGTERM` or `SIGINT` is passed to the server, whose graceful shutdown
 * runs, and the watcher exits with the server's exit code; a second
 * signal kills the server at once.
 *
 *     deno run -A _tools/dev.ts --allow-net=127.0.0.1 examples/auth/main.ts
 *
 * (`-A` for the watcher itself, which only runs `deno` and watches this
 * folder; the program runs with the flags given after it, alone. Tests
 * read the program's flags from the task as those starting with `--`.)
 *
 * @module
 */

const args = Deno.args;
if (args.length === 0) {
  console.error("usage: _tools/dev.ts <deno run flags> <script> [args]");
  Deno.exit(2);
}

/** Changes in these are not the program's source. */
const IGNORED =
  /(^|\/)(\.data|\.git|node_modules|\.out|api-docs|screenshots)(\/|$)/;
const SOURCE = /\.(ts|tsx|js|mjs|jsx|json|css|html)$/;
const DEBOUNCE_MS = 150;

let child: Deno.ChildProcess | undefined;
let stopping = false;

function start(): void {
  child = new Deno.Command("deno", {
    args: ["run", ...args],
    stdin: "inherit",
    stdout: "inherit",
    stderr: "inherit",
  }).spawn();
  const current = child;
  current.status.then((status) => {
    if (child === current && !stopping) {
      console.error(
        `%cWatcher%c program exited with code ${status.code}; restarting on file change...`,
        "color: blue",
        "",
      );
    }
  });
}

/** Ends the program with `signal` and waits for it; its exit code. */
async function stop(signal: Deno.Signal = "SIGTERM"): Promise<number> {
  const current = child;
  if (current === undefined) return 0;
  child = undefined; // ended on purpose: not reported as an exit
  try {
    current.kill(signal);
  } catch {
    // Exited already.
  }
  const { code } = await current.status;
  return code;
}

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.addSignalListener(signal, () => {
    if (stopping) {
      // A second signal: no more waiting for the graceful shutdown.
      stop("SIGKILL").then(() => Deno.exit(signal === "SIGINT" ? 130 : 143));
      return;
    }
    stopping = true;
    stop("SIGTERM").then((code) => Deno.exit(code));
  });
}

console.error("%cWatcher%c started.", "color: blue", "");
start();

let timer: ReturnType<typeof setTimeout> | undefined;
for await (const event of Deno.watchFs(".", { recursive: true })) {
  const changed = event.paths.some((path) =>
    SOURCE.test(path) && !IGNORED.test(path.replaceAll("\\", "/"))
  );
  if (!changed || stopping) continue;
  clearTimeout(timer);
  timer = setTimeout(async () => {
    console.error("%cWatcher%c file changed; restarting...", "color: blue", "");
    await stop();
    if (!stopping) start();
  }, DEBOUNCE_MS);
}
