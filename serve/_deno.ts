/**
 * serve() on Deno: Deno.serve, listening again when the accept loop dies
 * (descriptor exhaustion), as Go's http.Server retries a failed accept.
 *
 * @module
 */

import {
  type AdapterHooks,
  describe,
  type Listening,
  type NetAddr,
  PortInUseError,
} from "./shared.ts";

/** After a logged failure, further ones within this time are not logged. */
const QUIET_MS = 60_000;
const FIRST_DELAY_MS = 100;
const MAX_DELAY_MS = 1000;

interface DenoServer {
  readonly addr: { hostname: string; port: number };
  readonly finished: Promise<void>;
  shutdown(): Promise<void>;
}

interface DenoNamespace {
  serve(
    options: {
      hostname?: string;
      port?: number;
      onListen?: (addr: { hostname: string; port: number }) => void;
    },
    handler: AdapterHooks["handler"],
  ): DenoServer;
  errors: { AddrInUse: new () => Error };
}

export function listenDeno(
  hostname: string | undefined,
  port: number | undefined,
  hooks: AdapterHooks,
): Listening {
  const deno = (globalThis as unknown as { Deno: DenoNamespace }).Deno;
  let server: DenoServer;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastLog = -Infinity;

  function listen(): DenoServer {
    const next = deno.serve(
      { hostname, port, onListen() {} },
      hooks.handler,
    );
    // A restart keeps the port the first listener got (port 0).
    port = next.addr.port;
    next.finished.then(undefined, fail);
    return next;
  }

  function fail(error: unknown): void {
    if (stopped) return;
    // One line per episode: a listener that fails again soon after a
    // restart (descriptors still short) does not log again.
    const now = Date.now();
    if (now - lastLog > QUIET_MS) {
      lastLog = now;
      hooks.log(
        `Server stopped accepting connections on port ${port} (${
          describe(error)
        }); listening again as soon as it can.`,
      );
    }
    retry(FIRST_DELAY_MS);
  }

  function retry(delay: number): void {
    timer = setTimeout(() => {
      timer = undefined;
      if (stopped) return;
      try {
        server = listen();
      } catch {
        // Still short of descriptors (or the port is briefly taken).
        retry(Math.min(delay * 2, MAX_DELAY_MS));
      }
    }, delay);
  }

  try {
    server = listen();
  } catch (error) {
    if (error instanceof deno.errors.AddrInUse) {
      throw new PortInUseError(port ?? 8000, hostname ?? "0.0.0.0", {
        cause: error,
      });
    }
    throw error;
  }
  return {
    get addr(): NetAddr {
      const { hostname, port } = server.addr;
      return { hostname, port, transport: "tcp" };
    },
    async drain() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      await server.shutdown().catch(() => {});
    },
    force() {
      // Deno has no way to cut connections once a graceful shutdown has
      // begun; serve() ends the process when a signal started it.
    },
  };
}
