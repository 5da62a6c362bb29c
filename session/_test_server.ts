// A server process for the multi-server tests: one app, a session storage
// on a shared Deno KV file or Redis. Prints its port once listening.
//
//   deno run ... session/_test_server.ts kv <path-to-kv-file> [barrier]
//   deno run ... session/_test_server.ts redis <redis-url> [barrier]
//
// With a barrier count, handlers called with `?gate=all` wait until that
// many have loaded their session, then all return at once.

import { createClient } from "redis";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
import { app, createBarrier } from "./_test_app.ts";

const [kind, target, barrier] = Deno.args;
const cookie = {
  secrets: ["multi-server-secret-0123456789abcdefghij"],
  maxAge: 3600,
};
let storage: SessionStorage;
let close: () => Promise<void>;
if (kind === "kv") {
  const kv = await Deno.openKv(target);
  storage = createKvSessionStorage({ client: kv, cookie });
  close = () => Promise.resolve(kv.close());
} else {
  const client = await createClient({ url: target }).connect();
  storage = createRedisSessionStorage({ client, cookie });
  close = async () => void await client.quit();
}

const router = app(
  storage,
  barrier === undefined ? {} : { all: createBarrier(Number(barrier)) },
);
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  await close();
  Deno.exit(0);
});
