/**
 * The Redis session storage on Node and Bun with `npm:redis`: the storage
 * suite every session storage passes, against a throwaway `redis-server`
 * on a free loopback port, started here with `node:child_process`. Missing
 * `redis-server` fails under `CI` or `TOOLKIT_REQUIRE_ALL`, else the test
 * passes with a notice.
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
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { storageSuite } from "../../session/_test_suite.ts";
import { test, type TestContext } from "./harness.ts";

function findRedisServer(): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir !== "" && existsSync(join(dir, "redis-server"))) {
      return join(dir, "redis-server");
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

test("redis storage on npm:redis (throwaway redis-server)", async (t: TestContext) => {
  const path = findRedisServer();
  if (path === undefined) {
    if (process.env.CI || process.env.TOOLKIT_REQUIRE_ALL) {
      throw new Error("redis-server is not installed (required under CI)");
    }
    console.log("skipped: redis-server is not installed");
    return;
  }
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
  const connect = () =>
    createClient({
      url: `redis://127.0.0.1:${port}`,
      socket: { reconnectStrategy: false },
    }).connect();
  let client: Awaited<ReturnType<typeof connect>> | undefined;
  try {
    for (let attempt = 0;; attempt++) {
      try {
        client = await connect();
        break;
      } catch (error) {
        if (attempt === 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    const connected = client!;
    await storageSuite(t as unknown as Deno.TestContext, {
      storage: (cookie) =>
        createRedisSessionStorage({ client: connected, cookie }),
      revocable: true,
      shared: true,
    });
  } finally {
    await client?.quit().catch(() => undefined);
    child.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  }
});
