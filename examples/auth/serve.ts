/**
 * `Deno.serve` that outlives descriptor exhaustion, and says plainly when
 * its port is taken.
 *
 * When the process runs out of file descriptors (`ulimit -n`), for example
 * because many clients opened connections and never finished their
 * headers, `Deno.serve`'s accept loop fails with `EMFILE` ("Too many open
 * files"): the listener closes and `server.finished` rejects. Left alone,
 * that rejection is unhandled and ends the process. {@linkcode serveApp}
 * catches it, logs one line, and listens again, first after a short pause
 * and then with a doubling one (up to a second) while descriptors are
 * still short, as Go's `http.Server` does on a failed accept; the server
 * answers again once the idle connections are gone. Deno.serve has
 * no header-read timeout: the lasting defence is a reverse proxy in front
 * that has one (see SECURITY.md).
 *
 * @module
 */

/** After a logged failure, further ones within this time are not logged. */
const QUIET_MS = 60_000;

/** Options of {@linkcode serveApp}. */
export interface ServeAppOptions {
  hostname: string;
  port: number;
  /** The command that picks another port, for the "in use" message. */
  portHint?: string;
  /** Where the lines go. Default `console.error`. */
  log?: (line: string) => void;
  /** First pause before listening again, in ms. Default 100. */
  restartDelay?: number;
  /** Longest pause between attempts, in ms. Default 1000. */
  maxRestartDelay?: number;
  /** Told the address each time the server listens (again). */
  onListen?: (address: Deno.NetAddr, restarted: boolean) => void;
}

/** The running server: its current address, and a way to end it. */
export interface ServedApp {
  /** The address of the current listener. */
  readonly addr: Deno.NetAddr;
  /** Closes the listener and stops restarting. */
  shutdown(): Promise<void>;
}

/** Thrown when the port is taken; its message names the port and a fix. */
export class PortInUseError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PortInUseError";
  }
}

/**
 * Serves `handler` on `hostname:port`, listening again whenever the
 * listener fails. Throws {@linkcode PortInUseError} when the port is taken
 * at start.
 */
export function serveApp(
  handler: Deno.ServeHandler<Deno.NetAddr>,
  options: ServeAppOptions,
): ServedApp {
  const log = options.log ?? console.error;
  const firstDelay = options.restartDelay ?? 100;
  const maxDelay = options.maxRestartDelay ?? 1000;
  let port = options.port;
  let server: Deno.HttpServer<Deno.NetAddr>;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastLog = -Infinity;

  function listen(restarted: boolean): Deno.HttpServer<Deno.NetAddr> {
    const next = Deno.serve({
      hostname: options.hostname,
      port,
      onListen(addr) {
        // A restart keeps the port the first listener got (PORT=0).
        port = addr.port;
        options.onListen?.(addr, restarted);
      },
    }, handler);
    next.finished.then(undefined, (error) => fail(error));
    return next;
  }

  function fail(error: unknown): void {
    if (stopped) return;
    // One line per episode: a listener that fails again soon after a
    // restart (descriptors still short) does not log again.
    const now = Date.now();
    if (now - lastLog > QUIET_MS) {
      lastLog = now;
      log(
        `Server stopped accepting connections on port ${port} (${
          describe(error)
        }); listening again as soon as it can.`,
      );
    }
    retry(firstDelay);
  }

  function retry(delay: number): void {
    timer = setTimeout(() => {
      timer = undefined;
      if (stopped) return;
      try {
        server = listen(true);
      } catch {
        // Still short of descriptors (or the port is briefly taken).
        retry(Math.min(delay * 2, maxDelay));
      }
    }, delay);
  }

  try {
    server = listen(false);
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) {
      const hint = options.portHint ??
        `PORT=${options.port + 1} deno run ...`;
      throw new PortInUseError(
        `Port ${options.port} is in use. Choose another: ${hint}`,
      );
    }
    throw error;
  }
  return {
    get addr() {
      return server.addr;
    },
    async shutdown() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await server.shutdown().catch(() => {});
    },
  };
}

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^Error: /, "");
}
