/**
 * Deno KV calls per request of the whole app and of the Hono app, in
 * process: each `Deno.Kv` method (and each atomic operation's `commit`,
 * with its checks and mutations) is counted while `requests` signed-in
 * dashboards and `requests` sign-ins (bcrypt cost 4) run after a warm-up.
 * A KV call is most of what the native side of a request costs (SQLite,
 * the allocator), which `profile.ts` cannot name in Deno's stripped binary.
 *
 *   deno run -A --unstable-kv bench/app/kv_calls.ts [--requests=20]
 *
 * @module
 */
import bcrypt from "bcrypt";
import type { ServeInfo } from "@fetchkit/toolkit/fetch-router";
import { createApp } from "../../examples/auth/app.ts";
import { createSessionStorage } from "../../examples/auth/sessions.ts";
import { createConsoleMailer } from "../../examples/auth/mailer.ts";
import { createMailJobs } from "../../examples/auth/mail_jobs.ts";
import { createUserStore } from "../../examples/auth/users.ts";
import { createKvJobStore } from "@fetchkit/toolkit/jobs";
import { honoAuthApp, seedHonoUsers } from "./hono.ts";
import { loginBody, options } from "./_contenders.ts";

const requests = Number(options().requests ?? 20);
const USERS = 8;
const COST_FOR_BENCH = 4;
const SECRET_FOR_BENCH = "bench-secret-0123456789abcdef0123456789";

const counts = new Map<string, number>();
let counting = false;
function count(name: string, by = 1) {
  if (counting) counts.set(name, (counts.get(name) ?? 0) + by);
}

/** `atomic` with its checks, mutations and commit counted. */
function countedAtomic(atomic: Deno.AtomicOperation): Deno.AtomicOperation {
  let checks = 0, mutations = 0;
  const patched = atomic as unknown as Record<
    string,
    (...args: unknown[]) => unknown
  >;
  for (const name of ["set", "delete", "sum", "min", "max", "enqueue"]) {
    const original = patched[name]!;
    patched[name] = (...args) => {
      mutations++;
      original.apply(atomic, args);
      return atomic;
    };
  }
  const check = patched.check!, mutate = patched.mutate!;
  patched.check = (...args) => {
    checks += args.length;
    check.apply(atomic, args);
    return atomic;
  };
  patched.mutate = (...args) => {
    mutations += args.length;
    mutate.apply(atomic, args);
    return atomic;
  };
  const commit = patched.commit!;
  patched.commit = () => {
    count("atomic commit");
    count("(checks)", checks);
    count("(mutations)", mutations);
    return commit.apply(atomic, []);
  };
  return atomic;
}

/** `kv` with every call counted. */
function counted(kv: Deno.Kv): Deno.Kv {
  return new Proxy(kv, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property === "atomic") return () => countedAtomic(target.atomic());
      return (...args: unknown[]) => {
        count(String(property));
        return value.apply(target, args);
      };
    },
  });
}

const form = {
  "Content-Type": "application/x-www-form-urlencoded",
  "Sec-Fetch-Site": "same-origin",
  "Origin": "http://localhost",
};

async function measure(
  name: string,
  fetch: (request: Request) => Response | Promise<Response>,
) {
  const login = (i: number, cookie?: string) =>
    fetch(
      new Request("http://localhost/auth/login", {
        method: "POST",
        headers: cookie === undefined ? form : { ...form, cookie },
        body: loginBody(i % USERS),
      }),
    );
  const first = await login(0);
  const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
  const dashboard = () =>
    fetch(
      new Request("http://localhost/dashboard", { headers: { cookie } }),
    );
  for (
    const [label, run] of [
      ["GET /dashboard", dashboard],
      ["POST /auth/login", (i: number) => login(i)],
    ] as const
  ) {
    for (let i = 0; i < 10; i++) await (await run(i)).body?.cancel();
    counts.clear();
    counting = true;
    for (let i = 0; i < requests; i++) {
      const response = await run(i);
      await response.body?.cancel();
    }
    counting = false;
    const line = [...counts].map(([what, n]) =>
      `${what} ${(n / requests).toFixed(2)}`
    ).join(", ");
    console.log(`${name} ${label}: ${line}`);
  }
}

{
  const kv = counted(await Deno.openKv(":memory:"));
  const app = await createApp({
    kv,
    sessions: createSessionStorage({
      kind: "kv",
      kv,
      secrets: [SECRET_FOR_BENCH],
      secure: false,
    }),
    mailJobs: createMailJobs({
      store: createKvJobStore(kv),
      mailer: createConsoleMailer(() => {}),
      log: () => {},
    }),
    bcryptCost: COST_FOR_BENCH,
    log: null,
  });
  const users = createUserStore(kv);
  for (let i = 0; i < USERS; i++) {
    await users.create({
      email: `user${i}@example.com`,
      password: await bcrypt.hash(`password-${i}`, COST_FOR_BENCH),
      name: `User ${i}`,
    });
  }
  // A client address, as serve() gives it: the per-address limit counts.
  const info = {
    remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 },
  } as unknown as ServeInfo;
  await measure("fetchkit", (request) => app.fetch(request, info));
  kv.close();
}
{
  const kv = counted(await Deno.openKv(":memory:"));
  await seedHonoUsers(kv, USERS, COST_FOR_BENCH);
  const app = await honoAuthApp({
    kv,
    secret: SECRET_FOR_BENCH,
    cost: COST_FOR_BENCH,
  });
  await measure("hono", async (request) => await app.fetch(request));
  kv.close();
}
