// Soak: drives an example app (examples/auth by default) on loopback with
// concurrent registrations, logins, page views and logouts, bounded in
// time and requests, then checks that nothing was lost and memory held:
// - every registered user is in KV (by id and by email), once;
// - every session still logged in at the end is live (its dashboard shows
//   its user);
// - no request was answered 5xx, and no request failed at the socket;
// - memory holds: once RSS has reached its plateau it stops growing. RSS
//   is sampled every 2 s; the median of the last third of the run may
//   exceed the median of the middle third by at most 16 MiB or 10 %. (A
//   server's RSS rises after warm-up as the JIT, V8's heap, KV's SQLite
//   cache and the allocator's per-thread arenas fill; what matters is that
//   it levels off, which only minutes of load show.)
//
//   deno task soak                       # 240 s, at most 200000 requests
//   SOAK_SECONDS=20 SOAK_REQUESTS=5000 SOAK_APP=resources deno task soak
//
// SOAK_INSPECT=1 starts the app under the inspector and samples V8's heap
// (`Deno.memoryUsage()`) beside RSS; SOAK_ENV="NAME=value ..." adds
// environment variables to the app (say MALLOC_ARENA_MAX=2).
//
// SOAK_APP: `auth` (default) or `resources` (CRUD on posts instead of
// accounts; switch back if examples/auth is unavailable).

import { EXAMPLE_APPS, startApp } from "../../_tools/hostile.ts";
import { freePort } from "../_load.ts";
import { median } from "../_stats.ts";
import { heapReader, type MemorySample, memorySample } from "./_memory.ts";

const seconds = Number(Deno.env.get("SOAK_SECONDS") ?? 240);
const requestCap = Number(Deno.env.get("SOAK_REQUESTS") ?? 200_000);
const concurrency = Number(Deno.env.get("SOAK_CONCURRENCY") ?? 8);
const appName = Deno.env.get("SOAK_APP") ?? "auth";
// The last third's RSS may exceed the middle third's by this much.
const marginBytes = 16 * 1024 * 1024;
const marginRatio = 0.1;
const inspect = Deno.env.get("SOAK_INSPECT") === "1";
const extraEnv = Object.fromEntries(
  (Deno.env.get("SOAK_ENV") ?? "").split(/\s+/).filter(Boolean).map((pair) =>
    pair.split("=", 2) as [string, string]
  ),
);

const app = EXAMPLE_APPS.find((a) => a.name === appName);
if (app === undefined) throw new Error(`SOAK_APP=${appName}: no such app`);
const kvPath = app.env?.DENO_KV_PATH;

const stats = {
  requests: 0,
  byStatus: {} as Record<string, number>,
  serverErrors: 0,
  socketErrors: 0,
  registered: 0,
  logins: 0,
  logouts: 0,
  pageViews: 0,
  posts: 0,
};
const failures: string[] = [];

const inspectPort = inspect ? freePort() : 0;
await using running = await startApp(app, {
  flags: inspect ? [`--inspect=127.0.0.1:${inspectPort}`] : [],
  env: extraEnv,
});
const heap = inspect ? await heapReader(inspectPort) : undefined;
const base = `http://127.0.0.1:${running.port}`;
const deadline = performance.now() + seconds * 1000;
const warmUpEnd = performance.now() + Math.min(10, seconds / 5) * 1000;
let rssAfterWarmUp = 0;
const more = () => performance.now() < deadline && stats.requests < requestCap;

/** One request, as a same-origin browser form would send it. */
async function send(
  cookie: { value: string },
  method: string,
  path: string,
  form?: Record<string, string>,
): Promise<{ status: number; location: string | null; text: string }> {
  stats.requests++;
  try {
    const headers: Record<string, string> = { "Sec-Fetch-Site": "same-origin" };
    if (cookie.value) headers.Cookie = cookie.value;
    const response = await fetch(base + path, {
      method,
      headers,
      body: form ? new URLSearchParams(form) : undefined,
      redirect: "manual",
    });
    const text = await response.text();
    const setCookie = response.headers.get("set-cookie");
    if (setCookie) {
      cookie.value = /Max-Age=0/i.test(setCookie)
        ? ""
        : setCookie.split(";")[0];
    }
    stats.byStatus[response.status] = (stats.byStatus[response.status] ?? 0) +
      1;
    if (response.status >= 500) {
      stats.serverErrors++;
      failures.push(
        `${method} ${path}: ${response.status} ${text.slice(0, 100)}`,
      );
    }
    return {
      status: response.status,
      location: response.headers.get("location"),
      text,
    };
  } catch (error) {
    stats.socketErrors++;
    failures.push(`${method} ${path}: ${error}`);
    return { status: 0, location: null, text: "" };
  }
}

interface Account {
  email: string;
  password: string;
  name: string;
  cookie: { value: string };
  loggedIn: boolean;
}
const accounts: Account[] = [];
const run = crypto.randomUUID().slice(0, 8);

async function authWorker(worker: number): Promise<void> {
  for (let cycle = 0; more(); cycle++) {
    const account: Account = {
      email: `soak-${run}-${worker}-${cycle}@example.com`,
      password: `pw-${worker}-${cycle}-long-enough`,
      name: `Soak ${worker}.${cycle}`,
      cookie: { value: "" },
      loggedIn: false,
    };
    await send(account.cookie, "GET", "/auth/register");
    const registered = await send(account.cookie, "POST", "/auth/register", {
      email: account.email,
      password: account.password,
      name: account.name,
    });
    if (registered.status !== 303 || registered.location !== "/dashboard") {
      failures.push(
        `register ${account.email}: ${registered.status} ${registered.location}`,
      );
      continue;
    }
    stats.registered++;
    accounts.push(account);
    account.loggedIn = true;
    for (let view = 0; view < 20 && more(); view++) {
      const path = ["/dashboard", "/profile", "/"][view % 3];
      const page = await send(account.cookie, "GET", path);
      stats.pageViews++;
      if (page.status !== 200) failures.push(`GET ${path}: ${page.status}`);
    }
    await send(account.cookie, "POST", "/auth/logout");
    account.loggedIn = false;
    stats.logouts++;
    if (!more()) break;
    const login = await send(account.cookie, "POST", "/auth/login", {
      email: account.email,
      password: account.password,
    });
    if (login.status !== 303) {
      failures.push(`login ${account.email}: ${login.status}`);
      continue;
    }
    stats.logins++;
    account.loggedIn = true;
    const dashboard = await send(account.cookie, "GET", "/dashboard");
    stats.pageViews++;
    if (!dashboard.text.includes(account.name)) {
      failures.push(`dashboard of ${account.email} does not show its name`);
    }
    // Every other account stays logged in, to be checked at the end.
    if (cycle % 2 === 0) {
      await send(account.cookie, "POST", "/auth/logout");
      account.loggedIn = false;
      stats.logouts++;
    }
  }
}

const created: { id: number; title: string }[] = [];

async function resourcesWorker(worker: number): Promise<void> {
  const cookie = { value: "" };
  for (let cycle = 0; more(); cycle++) {
    const title = `soak ${run} ${worker}.${cycle}`;
    const response = await send(cookie, "POST", "/posts", {
      title,
      body: "x".repeat(100),
    });
    if (response.status === 201) {
      created.push({ id: JSON.parse(response.text).id, title });
      stats.posts++;
    }
    for (let view = 0; view < 4 && more(); view++) {
      await send(cookie, "GET", view % 2 ? "/posts" : "/");
      stats.pageViews++;
    }
  }
}

const samples: (MemorySample & { at: number })[] = [];
const sampler = (async () => {
  while (performance.now() < warmUpEnd && more()) {
    await new Promise((r) => setTimeout(r, 100));
  }
  rssAfterWarmUp = await running.rss();
  const start = performance.now();
  while (more()) {
    const sample = await memorySample(running.pid, heap);
    samples.push({ at: (performance.now() - start) / 1000, ...sample });
    await new Promise((r) => setTimeout(r, 2000));
  }
})();

const started = performance.now();
await Promise.all(
  Array.from(
    { length: concurrency },
    (_, i) => appName === "auth" ? authWorker(i) : resourcesWorker(i),
  ),
);
const elapsed = (performance.now() - started) / 1000;
await sampler;
heap?.close();
// Let the app settle before the final figure.
await new Promise((r) => setTimeout(r, 2000));
const rssEnd = await running.rss();

// Data intact.
let checked = 0;
if (appName === "auth") {
  for (const account of accounts.filter((a) => a.loggedIn)) {
    const page = await send(account.cookie, "GET", "/dashboard");
    if (page.status !== 200 || !page.text.includes(account.name)) {
      failures.push(`live session of ${account.email} lost: ${page.status}`);
    }
    checked++;
  }
  if (kvPath !== undefined) {
    const kv = await Deno.openKv(kvPath);
    try {
      for (const account of accounts) {
        const id = (await kv.get<number>(["users_by_email", account.email]))
          .value;
        const user = id === null
          ? null
          : (await kv.get<{ email: string; name: string }>(["users", id]))
            .value;
        if (user === null || user.name !== account.name) {
          failures.push(`user ${account.email} missing or altered in KV`);
        }
      }
    } finally {
      kv.close();
    }
  }
} else {
  for (const post of created) {
    const response = await send({ value: "" }, "GET", `/posts/${post.id}`);
    if (
      response.status !== 200 || JSON.parse(response.text).title !== post.title
    ) {
      failures.push(`post ${post.id} missing or altered`);
    }
    checked++;
  }
}

const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
// Growth after the plateau: the last third of the samples against the
// middle third (medians, so one GC or one burst does not decide).
const third = Math.floor(samples.length / 3);
const middle = median(samples.slice(third, 2 * third).map((s) => s.rss));
const last = median(samples.slice(2 * third).map((s) => s.rss));
const growth = last - middle;
const rssOk = third < 3 ||
  growth <= Math.max(marginBytes, middle * marginRatio);
if (third < 3) {
  console.error(
    `soak: only ${samples.length} memory samples; run longer (SOAK_SECONDS) for the plateau check`,
  );
}
const peak = Math.max(...samples.map((s) => s.rss));
const liveSessions = accounts.filter((a) => a.loggedIn).length;
const report = {
  app: appName,
  seconds: Number(elapsed.toFixed(1)),
  concurrency,
  requests: stats.requests,
  requestsPerSecond: Math.round(stats.requests / elapsed),
  byStatus: stats.byStatus,
  serverErrors: stats.serverErrors,
  socketErrors: stats.socketErrors,
  registered: stats.registered,
  logins: stats.logins,
  logouts: stats.logouts,
  pageViews: stats.pageViews,
  posts: stats.posts,
  liveSessionsChecked: checked,
  rssAfterWarmUpMiB: Number(mb(rssAfterWarmUp)),
  rssPlateauMiB: Number(mb(middle)),
  rssLastThirdMiB: Number(mb(last)),
  rssGrowthAfterPlateauMiB: Number(mb(growth)),
  rssPeakMiB: Number(mb(peak)),
  rssEndMiB: Number(mb(rssEnd)),
  liveSessions,
  memory: samples.filter((_, i) => i % 5 === 0 || i === samples.length - 1)
    .map((s) => ({
      at: Math.round(s.at),
      rssMiB: Number(mb(s.rss)),
      anonMiB: Number(mb(s.anon)),
      fileMiB: Number(mb(s.file)),
      threads: s.threads,
      ...(s.heapUsed === undefined ? {} : {
        heapUsedMiB: Number(mb(s.heapUsed)),
        heapTotalMiB: Number(mb(s.heapTotal!)),
        externalMiB: Number(mb(s.external!)),
      }),
    })),
  failures: failures.slice(0, 20),
};
console.log(JSON.stringify(report, null, 2));
if (failures.length > 0 || !rssOk) {
  console.error(
    `soak FAILED: ${failures.length} failures; RSS grew ${
      mb(growth)
    } MiB after its plateau of ${
      mb(middle)
    } MiB (last third against middle third)`,
  );
  Deno.exitCode = 1;
} else {
  console.log("soak passed");
}
