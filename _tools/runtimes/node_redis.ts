/**
 * A throwaway `redis-server` for the Node and Bun runs (`node:` APIs only,
 * so it bundles): found on `PATH`, started on a free loopback port with no
 * persistence, ready once a client connects. Used by `redis_checks.ts` and
 * `pubsub_checks.ts`.
 *
 * @module
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createClient } from "redis";

/**
 * The `redis-server` on `PATH` (or `$REDIS_SERVER`, such as
 * `valkey-server`, a name on `PATH` or a path), or `undefined`.
 */
export function findRedisServer(): string | undefined {
  const name = process.env.REDIS_SERVER || "redis-server";
  if (name.includes("/")) return existsSync(name) ? name : undefined;
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, name))) {
      return join(dir, name);
    }
  }
  return undefined;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A started server: its URL, `stop()` which ends it and its folder, and
 * `kill()` which ends it with SIGKILL (an outage; `stop()` still cleans).
 */
export interface NodeRedis {
  url: string;
  stop(): void;
  kill(): void;
}

/** Starts `redis-server` at `path`; resolves once it accepts a client. */
export async function startNodeRedis(path: string): Promise<NodeRedis> {
  const dir = mkdtempSync(join(tmpdir(), "fetchkit-redis-"));
  const port = await freePort();
  const child = spawn(path, [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--dir",
    dir,
  ], { stdio: "ignore" });
  const url = `redis://127.0.0.1:${port}`;
  const stop = () => {
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  };
  for (let attempt = 0;; attempt++) {
    try {
      const probe = await createClient({
        url,
        socket: { reconnectStrategy: false },
      }).connect();
      probe.destroy();
      return { url, stop, kill: () => child.kill("SIGKILL") };
    } catch (error) {
      if (attempt === 50) {
        stop();
        throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
