/**
 * The signed-in page of `bench/runtimes/_apps.ts` (`GET /page` with the
 * session cookie `GET /login` set) answered in process: ours
 * (`fetchkitFetch()`, the app's `router.fetch`), ours on an earlier
 * checkout (`--base`), Hono's `app.fetch`, and on Bun Elysia's
 * `app.handle`. Each batch's Requests are built before it is timed; a
 * request's time includes reading the whole body. Interleaved CPU-time
 * rounds, µs per request, ratios to ours per round. (Fastify answers only
 * through Node's `http` objects, so it has no in-process figure here;
 * `light-my-request` would time its own fake sockets.)
 *
 * ```sh
 * deno run -A bench/page/run.ts page.ts [--base=/tmp/base] [--rounds=15] [--per=500]
 * # one contender alone (ours unless --only="ours before"|Hono|Elysia), for
 * # --cpu-prof
 * deno run -A bench/page/run.ts page.ts --runtimes=deno --profile=20000
 * ```
 *
 * @module
 */
import { argsOf, type Contender, rounds } from "./_measure.ts";

type Handler = (request: Request) => Response | Promise<Response>;
const PAGE_CHECK = "&lt;Item 30&gt; &amp; ";
const ORIGIN = "http://127.0.0.1:8000";

const options = argsOf();
const appsPath = options.get("apps");
if (appsPath === undefined) {
  throw new Error("--apps=<bundle> (run.ts gives it)");
}
const apps = await import(appsPath);
const base = options.get("base-apps") === undefined
  ? undefined
  : await import(options.get("base-apps")!);
const isBun = (globalThis as { Bun?: unknown }).Bun !== undefined;

/** The session cookie that `GET /login` sets, checked on one `/page`. */
async function signIn(name: string, fetch: Handler): Promise<string> {
  const login = await fetch(new Request(ORIGIN + "/login"));
  await login.text();
  const cookie = login.headers.get("set-cookie")?.split(";")[0];
  if (cookie === undefined) throw new Error(`${name}: /login set no cookie`);
  const page = await fetch(request(cookie));
  const body = await page.text();
  if (
    page.status !== 200 || !body.includes(PAGE_CHECK) ||
    !page.headers.get("set-cookie")?.startsWith("session=") ||
    !/nonce-[A-Za-z0-9+/=_-]{16,}/.test(
      page.headers.get("content-security-policy") ?? "",
    )
  ) {
    throw new Error(
      `${name}: /page answered ${page.status} without the page, cookie or nonce`,
    );
  }
  return cookie;
}

function request(cookie: string): Request {
  return new Request(ORIGIN + "/page", {
    headers: { accept: "text/html", "user-agent": "bench", cookie },
  });
}

const per = Number(options.get("per") ?? 500);
async function contender(name: string, fetch: Handler): Promise<Contender> {
  const cookie = await signIn(name, fetch);
  let batch: Request[] = [];
  return {
    name,
    prepare: () => {
      batch = Array.from({ length: per }, () => request(cookie));
    },
    run: async () => {
      for (const each of batch) await (await fetch(each)).text();
    },
  };
}

async function all(): Promise<Contender[]> {
  const contenders = [await contender("ours", apps.fetchkitFetch())];
  if (base !== undefined) {
    contenders.push(await contender("ours before", base.fetchkitFetch()));
  }
  contenders.push(await contender("Hono", apps.honoApp()));
  if (isBun && apps.elysiaInstance !== undefined) {
    const elysia = await apps.elysiaInstance((name: string) => import(name));
    contenders.push(
      await contender("Elysia", (request) => elysia.handle(request)),
    );
  }
  return contenders;
}

// `--profile=N`: N requests of one contender alone (`--only=`, ours by
// default), for --cpu-prof.
const profile = Number(options.get("profile") ?? 0);
const contenders = await all();
if (profile > 0) {
  const only = options.get("only") ?? "ours";
  const one = contenders.find((c) => c.name === only);
  if (one === undefined) throw new Error(`no contender ${only}`);
  for (let done = 0; done < profile; done += per) {
    await one.prepare!();
    await one.run();
  }
} else {
  await rounds(contenders, {
    rounds: Number(options.get("rounds") ?? 15),
    warm: Number(options.get("warm") ?? 6),
    per,
    against: "ours",
  });
}
