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
 * started with `--v8-flags=--expose-gc` and answers `Deno.memoryUsage()`.
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
import {
  createSessionStorage,
  GUEST_MAX_AGE,
  SESSION_MAX_AGE,
} from "../../examples/auth/sessions.ts";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import type { SessionStorage } from "@fetchkit/toolkit/session-middleware";
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
// Under callgrind (one thread at a time, some 30x slower) a KV call can
// pass the stores' 5 s timeout: `instructions.ts` raises it here. The
// timeout stays armed, so it costs what it costs.
const storeTimeout = Deno.env.get("STORE_TIMEOUT_MS") === undefined
  ? undefined
  : Number(Deno.env.get("STORE_TIMEOUT_MS"));

/** `examples/auth/sessions.ts`'s KV storage, with `storeTimeout`. */
function sessionStorage(): SessionStorage {
  if (storeTimeout === undefined) {
    return createSessionStorage({
      kind: "kv",
      kv,
      secrets: [SECRET],
      secure: false,
    });
  }
  const cookie = {
    name: "session",
    secrets: [SECRET],
    secure: false,
    httpOnly: true,
    sameSite: "lax",
    maxAge: SESSION_MAX_AGE,
    path: "/",
  } as const;
  const member = createKvSessionStorage({
    client: kv,
    cookie,
    timeout: storeTimeout,
  });
  const guest = createKvSessionStorage({
    client: kv,
    cookie: { ...cookie, maxAge: GUEST_MAX_AGE },
    timeout: storeTimeout,
  });
  return {
    read: (header) => member.read(header),
    save: (session) =>
      session.get("userId") === undefined
        ? guest.save(session)
        : member.save(session),
    listUserSessions: (userId: string) => member.listUserSessions(userId),
    destroyUserSession: (userId: string, id: string) =>
      member.destroyUserSession(userId, id),
    destroyUserSessions: (userId: string, options?: { except?: string }) =>
      member.destroyUserSessions(userId, options),
  } as SessionStorage;
}

type Handler = (request: Request, info: ServeInfo) =>
  | Response
  | Promise<Response>;

async function fetchkitHandler(): Promise<Handler> {
  const sessions = sessionStorage();
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
    rateLimitStore: createKvRateLimitStore({
      client: kv,
      timeout: storeTimeout,
    }),
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
    if (gc === undefined) return new Response("no gc", { status: 501 });
    return Response.json(Deno.memoryUsage());
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
