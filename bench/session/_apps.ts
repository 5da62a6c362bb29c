/**
 * The apps and requests of the session benchmarks, shared by
 * `session_bench.ts` (deno bench) and `load.ts` (interleaved rounds,
 * medians).
 *
 * "read" requests carry a valid cookie and only read the session (the
 * common case: who is logged in); "write" requests change it, so the cookie
 * is signed and sent again. "cold" sends 2048 different cookies in turn,
 * more than the verified-cookie cache holds, so every request pays the HMAC.
 */
import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import {
  type Session,
  session,
  type SessionStorage,
} from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { createKvSessionStorage } from "@fetchkit/toolkit/session-storage-kv";
import { createRouter as createRemixRouter } from "@remix-run/fetch-router";
import { createCookie } from "@remix-run/cookie";
import { Session as RemixSession } from "@remix-run/session";
import { createCookieSessionStorage as createRemixCookieStorage } from "@remix-run/session/cookie-storage";
import { session as remixSession } from "@remix-run/session-middleware";

const SECRET = "bench-secret-0123456789abcdefghijklmnopqrstuvwxyz";
const cookie = { name: "session", secrets: [SECRET], maxAge: 604800 };

// --- fetchkit ----------------------------------------------------------

const Key = createContextKey<Session>();

function app(storage?: SessionStorage): Router {
  const router = createRouter({
    middleware: storage === undefined ? [] : [session(Key, storage)],
  });
  router.get("/", (context) => {
    const userId = context.get(Key)?.get("userId");
    return new Response(`user ${userId}`);
  });
  router.post("/", (context) => {
    if (storage === undefined) return new Response("ok");
    const current = context.get(Key)!;
    current.set("n", ((current.get("n") as number | undefined) ?? 0) + 1);
    return new Response("ok");
  });
  return router;
}

/** Logs in once and returns the cookie the browser would send back. */
async function login(storage: SessionStorage): Promise<string> {
  const current = await storage.read(null);
  current.set("userId", 42);
  return (await storage.save(current))!.split(";")[0];
}

const plain = app();
const cookieStorage = createCookieSessionStorage({ cookie });
const cookieApp = app(cookieStorage);
const cookieHeader = await login(cookieStorage);
const cold = await Promise.all(
  Array.from({ length: 2048 }, () => login(cookieStorage)),
);

const kv = await Deno.openKv(":memory:");
const kvStorage = createKvSessionStorage({ client: kv, cookie });
const kvApp = app(kvStorage);
const kvHeader = await login(kvStorage);
/** The KV key the storage keeps the benchmark session under. */
const kvKey = ["sessions", kvHeader.split("=")[1].split(".")[0]];

// --- Remix -------------------------------------------------------------

const remixCookie = createCookie("session", {
  secrets: [SECRET],
  maxAge: 604800,
  httpOnly: true,
  sameSite: "Lax",
});
const remixStorage = createRemixCookieStorage();

// session-middleware 0.2.2 is typed against fetch-router 0.18; at run time
// it needs only context.get/set/has/headers, which 0.20 has.
type RemixMiddleware = NonNullable<
  NonNullable<Parameters<typeof createRemixRouter>[0]>["middleware"]
>[number];
const remixSessionMiddleware = remixSession(
  remixCookie,
  remixStorage,
) as unknown as RemixMiddleware;

function remixApp(withSession: boolean) {
  const router = createRemixRouter({
    middleware: (withSession ? [remixSessionMiddleware] : []) as [
      RemixMiddleware,
    ],
  });
  router.get("/", (context) => {
    const userId = withSession
      ? context.get(RemixSession)!.get("userId")
      : undefined;
    return new Response(`user ${userId}`);
  });
  router.post("/", (context) => {
    if (!withSession) return new Response("ok");
    const current = context.get(RemixSession)!;
    current.set("n", ((current.get("n") as number | undefined) ?? 0) + 1);
    return new Response("ok");
  });
  return router;
}

const remixPlain = remixApp(false);
const remix = remixApp(true);
const remixHeader = await (async () => {
  const response = await remix.fetch(
    new Request("http://localhost/", { method: "POST" }),
  );
  await response.body?.cancel();
  return response.headers.getSetCookie()[0].split(";")[0];
})();

// --- cases -------------------------------------------------------------

function get(header?: string): Request {
  return new Request("http://localhost/", {
    headers: header === undefined ? {} : { cookie: header },
  });
}

function post(header: string): Request {
  return new Request("http://localhost/", {
    method: "POST",
    headers: { cookie: header },
  });
}

async function run(
  router: { fetch(r: Request): Response | Promise<Response> },
  request: Request,
) {
  const response = await router.fetch(request);
  await response.arrayBuffer();
}

// Sanity: the session cases really read and write the session.
await run(remix, post(remixHeader));
for (
  const [router, header] of [
    [cookieApp, cookieHeader],
    [kvApp, kvHeader],
  ] as const
) {
  const text = await (await router.fetch(get(header))).text();
  if (text !== "user 42") throw new Error(`session not read: ${text}`);
}
{
  const response = await remix.fetch(get(remixHeader));
  if (response.headers.getSetCookie().length !== 0) {
    throw new Error("remix read sent a cookie");
  }
  await response.body?.cancel();
}

/** One benchmark case: a group, a name and one request. */
export interface Case {
  group: "read" | "write";
  name: string;
  baseline?: boolean;
  request(): Promise<void>;
}

let next = 0;

/** Every case, in the order they are reported. */
export const cases: Case[] = [
  {
    group: "read",
    name: "fetchkit: no session",
    baseline: true,
    request: () => run(plain, get(cookieHeader)),
  },
  {
    group: "read",
    name: "fetchkit: cookie storage",
    request: () => run(cookieApp, get(cookieHeader)),
  },
  {
    group: "read",
    name: "fetchkit: cookie storage, cold (HMAC each time)",
    request: () => run(cookieApp, get(cold[next++ % cold.length])),
  },
  {
    group: "read",
    name: "fetchkit: Deno KV storage (:memory:)",
    request: () => run(kvApp, get(kvHeader)),
  },
  {
    // What Deno KV itself costs: the floor under the KV storage's overhead.
    group: "read",
    name: "deno kv: bare kv.get of the session (no router)",
    request: async () => {
      await kv.get(kvKey);
    },
  },
  {
    group: "read",
    name: "remix: no session",
    request: () => run(remixPlain, get(remixHeader)),
  },
  {
    group: "read",
    name: "remix: cookie storage",
    request: () => run(remix, get(remixHeader)),
  },
  {
    group: "write",
    name: "fetchkit: no session",
    baseline: true,
    request: () => run(plain, post(cookieHeader)),
  },
  {
    group: "write",
    name: "fetchkit: cookie storage",
    request: () => run(cookieApp, post(cookieHeader)),
  },
  {
    group: "write",
    name: "fetchkit: Deno KV storage (:memory:)",
    request: () => run(kvApp, post(kvHeader)),
  },
  {
    group: "write",
    name: "deno kv: bare kv.get + checked atomic set (no router)",
    request: async () => {
      const entry = await kv.get(kvKey);
      await kv.atomic().check(entry).set(kvKey, entry.value, {
        expireIn: 604800_000,
      }).commit();
    },
  },
  {
    group: "write",
    name: "remix: no session",
    request: () => run(remixPlain, post(remixHeader)),
  },
  {
    group: "write",
    name: "remix: cookie storage",
    request: () => run(remix, post(remixHeader)),
  },
];
