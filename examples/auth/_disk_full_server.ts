/**
 * A server process for disk_full_test.ts: the app on a Deno KV file on a
 * tiny tmpfs (which the test mounts), filled until SQLite answers
 * "database or disk is full" before it listens. Prints its port.
 *
 * deno run --unstable-kv --allow-all examples/auth/_disk_full_server.ts <kv-file>
 *
 * @module
 */
import { createApp } from "./app.ts";
import { createSessionStorage } from "./sessions.ts";
import { SECRET } from "./_test_app.ts";

const kv = await Deno.openKv(Deno.args[0]);
const app = await createApp({
  kv,
  sessions: createSessionStorage({
    kind: "kv",
    kv,
    secrets: [SECRET],
    secure: false,
  }),
  bcryptCost: 4,
  log: null,
});
// Smaller and smaller fillers, so that even a small write finds no room.
let n = 0;
for (const size of [60_000, 6_000, 600, 60]) {
  const filler = "x".repeat(size);
  for (;;) {
    try {
      await kv.set(["filler", n++], filler);
    } catch (error) {
      if (!String(error).includes("disk is full")) throw error;
      break;
    }
  }
}
const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, app.fetch);

Deno.addSignalListener("SIGTERM", async () => {
  await server.shutdown();
  kv.close();
  Deno.exit(0);
});
