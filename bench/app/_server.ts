/**
 * One contender of the whole-app benchmark, in its own process, on Deno:
 *
 * - `fetchkit`: the auth example as `main.ts` builds it (`createApp()` on
 *   Deno KV, KV sessions, KV login limits, served by `serve()`), with
 *   `log: null` and no mail worker;
 * - `hono`: the same app as Hono's docs would have it written (`hono.ts`),
 *   served by `Deno.serve`.
 *
 * Both use bcrypt (`npm:bcrypt`) at cost 4, the lowest, in place of 12: a
 * sign-in then measures the app, not the hash. Both seed `USERS` (`_contenders.ts`) users
 * `user<i>@example.com` / `password-<i>` (unverified email, role `user`).
 * `GET /__gc` (bench only, before the app) runs a full GC when Deno was
 * started with `--v8-flags=--expose-gc`.
 *
 *   deno run -A --unstable-kv bench/app/_server.ts <fetchkit|hono> <port> <kv path|:memory:>
 *
 * Prints "ready" when listening.
 *
 * @module
 */
import { serve } from "@fetchkit/toolkit/serve";
import type { ServeInfo } from "@fetchkit/toolkit/fetch-router";
import bcrypt from "bcrypt";
import { createApp } from "../../examples/auth/app.ts";
import { createSessionStorage } from "../../examples/auth/sessions.ts";
import { createConsoleMailer } from "../../examples/auth/mailer.ts";
import { createMailJobs } from "../../examples/auth/mail_jobs.ts";
import { createUserStore } from "../../examples/auth/users.ts";
import { createKvJobStore } from "@fetchkit/toolkit/jobs";
import { createKvRateLimitStore } from "@fetchkit/toolkit/rate-limit-middleware";
import { honoAuthApp, seedHonoUsers } from "./hono.ts";
import { USERS } from "./_contenders.ts";

/** Signing secret of both contenders. */
export const SECRET = "bench-secret-0123456789abcdef0123456789";
/** bcrypt cost of both contenders: the lowest bcrypt accepts. */
export const COST = 4;

const [name, portText, kvPath = ":memory:"] = Deno.args;
const port = Number(portText);
const kv = await Deno.openKv(kvPath);
const gc = (globalThis as { gc?: () => void }).gc;

type Handler = (request: Request, info: ServeInfo) =>
  | Response
  | Promise<Response>;

async function fetchkitHandler(): Promise<Handler> {
  const sessions = createSessionStorage({
    kind: "kv",
    kv,
    secrets: [SECRET],
    secure: false,
  });
  const mailJobs = createMailJobs({
    store: createKvJobStore(kv),
    mailer: createConsoleMailer(() => {}),
    log: () => {},
  });
  const app = await createApp({
    kv,
    sessions,
    mailJobs,
    bcryptCost: COST,
    log: null,
    rateLimitStore: createKvRateLimitStore({ client: kv }),
  });
  const users = createUserStore(kv);
  for (let i = 0; i < USERS; i++) {
    await users.create({
      email: `user${i}@example.com`,
      password: await bcrypt.hash(`password-${i}`, COST),
      name: `User ${i}`,
    });
  }
  return (request, info) => app.fetch(request, info);
}

async function honoHandler(): Promise<Handler> {
  await seedHonoUsers(kv, USERS, COST);
  const app = await honoAuthApp({ kv, secret: SECRET, cost: COST });
  return (request, info) => app.fetch(request, { info });
}

const handler = name === "fetchkit"
  ? await fetchkitHandler()
  : name === "hono"
  ? await honoHandler()
  : undefined;
if (handler === undefined) throw new Error(`no contender "${name}"`);

const withGc: Handler = (request, info) => {
  if (request.url.endsWith("/__gc")) {
    for (let i = 0; i < 3; i++) gc?.();
    return new Response(gc === undefined ? "no gc" : "ok");
  }
  return handler(request, info);
};
const ready = () => console.log("ready");
if (name === "fetchkit") {
  serve(withGc, {
    hostname: "127.0.0.1",
    port,
    handleSignals: false,
    onListen: ready,
  });
} else {
  Deno.serve({ hostname: "127.0.0.1", port, onListen: ready }, withGc);
}
