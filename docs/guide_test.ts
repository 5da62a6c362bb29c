// Runs every code block of docs/guide.md as the guide says (main.ts in a
// project of its own, `deno run --unstable-kv --allow-all main.ts`), on a
// free port instead of its own, and sends it requests: the ones listed below
// for the blocks they name, else a GET / that must not answer 5xx. A block
// that serves nothing must print, and run to its end without an error.

import assert from "node:assert/strict";
import { codeBlocks, makeProject, startCommand } from "../_tools/doc_run.ts";
import { redisServerOrSkip, startRedis } from "../_tools/redis.ts";
import { totpCode } from "../totp/mod.ts";

const guide = await Deno.readTextFile(new URL("./guide.md", import.meta.url));
const redisServer = await redisServerOrSkip();
// The Redis the guide's blocks name; the tests give them a throwaway one.
const GUIDE_REDIS = "redis://127.0.0.1:6379";
const COMMAND = "deno run --unstable-kv --allow-all main.ts";

type Check = (origin: string) => Promise<void>;

/**
 * Requests with one cookie, the session's, kept like a browser; `form`
 * makes a urlencoded POST. Redirects are not followed.
 */
function cookieJar(): {
  send(url: string, form?: Record<string, string>): Promise<Response>;
} {
  let cookie = "";
  return {
    async send(url, form) {
      const response = await fetch(url, {
        method: form ? "POST" : "GET",
        body: form ? new URLSearchParams(form) : undefined,
        headers: { cookie },
        redirect: "manual",
      });
      const set = response.headers.get("set-cookie");
      if (set) cookie = set.split(";")[0];
      return response;
    },
  };
}

/** Requests for the blocks that contain the key. */
const checks: Record<string, Check> = {
  'router.mount("/orgs/:orgId"': async (origin) => {
    const url = `${origin}/orgs/1/teams/2`;
    const denied = await fetch(url);
    await denied.body?.cancel();
    assert.equal(denied.status, 401);
    const allowed = await fetch(url, { headers: { Authorization: "x" } });
    assert.deepEqual(await allowed.json(), { orgId: "1", teamId: "2" });
  },
  "const CurrentSession": async (origin) => {
    const response = await fetch(`${origin}/me`);
    await response.body?.cancel();
    assert.equal(response.status, 401);
  },
  "serveStatic({": async (origin) => {
    const file = await fetch(`${origin}/assets/app.css`, {
      headers: { Origin: "https://app.example" },
    });
    assert.equal(await file.text(), "body { margin: 0 }");
    assert.equal(file.headers.get("cache-control"), "public, max-age=3600");
    assert.equal(file.headers.get("x-content-type-options"), "nosniff");
    assert.equal(
      file.headers.get("access-control-allow-origin"),
      "https://app.example",
    );
    const preflight = await fetch(`${origin}/api/me`, {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "PUT",
      },
    });
    await preflight.body?.cancel();
    assert.equal(preflight.status, 204);
    const api = await fetch(`${origin}/api/me`);
    assert.deepEqual(await api.json(), { name: "Ada" });
  },
  "csrf()": async (origin) => {
    const refused = await fetch(`${origin}/transfer`, {
      method: "POST",
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    await refused.body?.cancel();
    assert.equal(refused.status, 403);
    const allowed = await fetch(`${origin}/transfer`, {
      method: "POST",
      headers: { "Sec-Fetch-Site": "same-origin" },
    });
    assert.equal(await allowed.text(), "done");
  },
  "parseForm(context.get(FormData), Post)": async (origin) => {
    const post = (body: string) =>
      fetch(`${origin}/posts`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body,
        redirect: "manual",
      });
    const invalid = await post("title=");
    assert.equal(invalid.status, 422);
    assert.match(await invalid.text(), /Title is required/);
    const valid = await post("title=Hello&tags=a&tags=b");
    await valid.body?.cancel();
    assert.equal(valid.status, 303);
    assert.equal(valid.headers.get("location"), "/posts");
  },
  "createRedisPubSub({ client })": async (origin) => {
    const stream = await fetch(`${origin}/news`);
    const reader = stream.body!.pipeThrough(new TextDecoderStream())
      .getReader();
    let text = "";
    const until = async (pattern: RegExp) => {
      while (!pattern.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${pattern}: ${text}`);
        text += value;
      }
    };
    await until(/event: position/);
    const posted = await fetch(`${origin}/news`, {
      method: "POST",
      body: "hello",
    });
    assert.equal(posted.status, 201);
    const { id } = await posted.json();
    await until(/event: news\nid: [^\n]+\ndata: \{"text":"hello"\}/);
    assert.ok(text.includes(`id: ${id}`), text);
    await reader.cancel();
  },
  "bodyLimit({ maxBytes: 100 * 1024 })": async (origin) => {
    const put = (id: string, body: string, type = "application/json") =>
      fetch(`${origin}/notes/${id}`, {
        method: "PUT",
        headers: { "content-type": type, accept: "application/json" },
        body,
      });
    const saved = await put("1", '{"title": " Hi "}');
    assert.deepEqual(await saved.json(), { title: "Hi", tags: [] });
    const invalid = await put("1", '{"title": ""}');
    assert.equal(invalid.status, 422);
    assert.deepEqual(Object.keys((await invalid.json()).fieldErrors), [
      "title",
    ]);
    const text = await put("1", "{}", "text/plain");
    assert.equal(text.status, 415);
    await text.body?.cancel();
    const badId = await put("x", "{}");
    assert.equal(badId.status, 400);
    await badId.body?.cancel();
    const big = await put("1", JSON.stringify({ title: "x".repeat(200_000) }));
    assert.equal(big.status, 413);
    await big.body?.cancel();
    const list = await fetch(`${origin}/notes?limit=1`);
    assert.deepEqual(await list.json(), [{ title: "Hi", tags: [] }]);
  },
  "createOpenApiDocument(routes, {": async (origin) => {
    const create = (body: unknown) =>
      fetch(`${origin}/todos`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    const created = await create({ title: " Milk ", done: false });
    assert.equal(created.status, 201);
    assert.deepEqual(await created.json(), {
      id: 1,
      title: "Milk",
      done: false,
    });
    const invalid = await create({ title: "", done: "no" });
    assert.equal(invalid.status, 422);
    assert.deepEqual(Object.keys((await invalid.json()).fieldErrors).sort(), [
      "done",
      "title",
    ]);
    const badId = await fetch(`${origin}/todos/x`);
    assert.equal(badId.status, 400);
    await badId.body?.cancel();
    const open = await fetch(`${origin}/todos?done=false`);
    assert.deepEqual((await open.json()).length, 1);
    const done = await fetch(`${origin}/todos?done=true`);
    assert.deepEqual(await done.json(), []);
    const document = await (await fetch(`${origin}/openapi.json`)).json();
    assert.equal(document.openapi, "3.1.0");
    assert.deepEqual(Object.keys(document.paths).sort(), [
      "/todos",
      "/todos/{id}",
    ]);
  },
  "tracing({ storeSpans: true })": async (origin) => {
    const response = await fetch(`${origin}/orders`, { method: "POST" });
    await response.body?.cancel();
    assert.equal(response.status, 401);
    assert.match(
      response.headers.get("www-authenticate") ?? "",
      /^Bearer realm="api"/,
    );
    assert.match(response.headers.get("server-timing") ?? "", /^total;dur=/);
  },
  'router.post("/2fa/verify"': async (origin) => {
    const { send } = cookieJar();
    const setup = await send(`${origin}/2fa/setup`);
    const page = await setup.text();
    assert.match(page, /<svg[^>]*>/);
    const secret = /<code>([A-Z2-7]+)<\/code>/.exec(page)?.[1];
    assert.ok(secret, page);
    const wrong = await send(`${origin}/2fa/setup`, { code: "12" });
    assert.equal(wrong.status, 422);
    await wrong.body?.cancel();
    const code = await totpCode(secret);
    const on = await send(`${origin}/2fa/setup`, { code });
    assert.equal(on.status, 200);
    const backup = [
      ...(await on.text()).matchAll(/<code>([a-z2-7]{4}-[a-z2-7]{4})<\/code>/g),
    ].map((match) => match[1]);
    assert.equal(backup.length, 10);
    // The set-up's code is used; the next step's code works once.
    const reused = await send(`${origin}/2fa/verify`, { code });
    assert.equal(reused.status, 401);
    await reused.body?.cancel();
    const next = await totpCode(secret, { time: Date.now() + 30_000 });
    const signedIn = await send(`${origin}/2fa/verify`, { code: next });
    assert.equal(await signedIn.text(), "signed in");
    const again = await send(`${origin}/2fa/verify`, { code: next });
    assert.equal(again.status, 401);
    await again.body?.cancel();
    // A backup code, typed in upper case without its hyphen, works once.
    const typed = backup[3].replace("-", "").toUpperCase();
    const first = await send(`${origin}/2fa/verify`, { code: typed });
    assert.equal(await first.text(), "signed in with a backup code (9 left)");
    const second = await send(`${origin}/2fa/verify`, { code: typed });
    assert.equal(second.status, 401);
    await second.body?.cancel();
  },
  'requireReauth({ session: Sessions, confirmPath: "/confirm" })': async (
    origin,
  ) => {
    const { send } = cookieJar();
    const out = await send(`${origin}/settings/email`);
    assert.equal(out.status, 303);
    assert.equal(out.headers.get("location"), "/login");
    await out.body?.cancel();
    const login = await send(`${origin}/login`, { password: "correct horse" });
    assert.equal(login.status, 303);
    await login.body?.cancel();
    const asked = await send(`${origin}/settings/email`);
    assert.equal(asked.status, 303);
    assert.equal(
      asked.headers.get("location"),
      "/confirm?returnTo=%2Fsettings%2Femail",
    );
    await asked.body?.cancel();
    const confirmPage = await send(`${origin}${asked.headers.get("location")}`);
    assert.match(await confirmPage.text(), /value="\/settings\/email"/);
    const wrong = await send(`${origin}/confirm`, {
      password: "wrong",
      returnTo: "/settings/email",
    });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    // An open redirect is refused: the confirm page sends home instead.
    const away = await send(`${origin}/confirm`, {
      password: "correct horse",
      returnTo: "/\\evil.example",
    });
    assert.equal(away.headers.get("location"), "/");
    await away.body?.cancel();
    const back = await send(`${origin}/confirm`, {
      password: "correct horse",
      returnTo: "/settings/email",
    });
    assert.equal(back.headers.get("location"), "/settings/email");
    await back.body?.cancel();
    const form = await send(`${origin}/settings/email`);
    assert.equal(form.status, 200);
    assert.match(await form.text(), /Change email/);
    // Signing in again clears the confirmation.
    (await send(`${origin}/login`, { password: "correct horse" })).body
      ?.cancel();
    const againAsked = await send(`${origin}/settings/email`);
    assert.equal(againAsked.status, 303);
    await againAsked.body?.cancel();
  },
  "notes_published_total": async (origin) => {
    for (const id of [1, 2]) {
      assert.equal(
        await (await fetch(`${origin}/notes/${id}`)).text(),
        `note ${id}`,
      );
    }
    const posted = await fetch(`${origin}/notes`, {
      method: "POST",
      body: new URLSearchParams({ title: "Hi" }),
    });
    assert.equal(posted.status, 201);
    await posted.body?.cancel();
    const scrape = await fetch(`${origin}/metrics`);
    assert.match(
      scrape.headers.get("content-type") ?? "",
      /^text\/plain; version=0\.0\.4/,
    );
    const text = await scrape.text();
    // The lines the guide's `grep` shows, as it shows them.
    const shown = guide.split("\n").filter((line) =>
      /^# (http_requests_total|notes_)/.test(line)
    ).map((line) => line.slice(2));
    assert.equal(shown.length, 3);
    assert.deepEqual(
      text.split("\n").filter((line) =>
        /^(http_requests_total|notes_)/.test(line)
      ),
      shown,
    );
    assert.match(text, /^process_resident_memory_bytes \d+/m);
    const open = await fetch(`${origin}/metrics`, {
      headers: { accept: "application/openmetrics-text; version=1.0.0" },
    });
    assert.match(await open.text(), /# EOF\n$/);
  },
  'checks: { kv: () => kv.get(["health"]) }': async (origin) => {
    const live = await fetch(`${origin}/livez`);
    assert.deepEqual(await live.json(), { status: "ok" });
    const ready = await fetch(`${origin}/readyz`);
    assert.equal(ready.status, 200);
    assert.equal(ready.headers.get("cache-control"), "no-store");
    // As the guide's `curl` shows it, but for the milliseconds.
    const shown = /^curl http:\/\/127\.0\.0\.1:8114\/readyz +# (.+)$/m.exec(
      guide,
    )?.[1];
    assert.ok(shown, "the guide shows a /readyz answer");
    assert.equal(
      (await ready.text()).replace(/"ms":\d+/, '"ms":0'),
      shown,
    );
  },
  'queue.enqueue("welcome", { to: email }': async (origin) => {
    const signUp = (email: string) =>
      fetch(`${origin}/signup`, {
        method: "POST",
        body: new URLSearchParams({ email }),
      });
    for (let i = 0; i < 2; i++) {
      const response = await signUp("ada@example.com");
      assert.equal(response.status, 201);
      assert.equal(await response.text(), "Check your inbox");
    }
    const bad = await signUp("ada");
    assert.equal(bad.status, 422);
    await bad.body?.cancel();
    // The worker sends the one job: one mail for two sign-ups.
    let outbox: string[] = [];
    const deadline = Date.now() + 10_000;
    while (outbox.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      outbox = await (await fetch(`${origin}/outbox`)).json();
    }
    assert.equal(outbox.length, 1);
    assert.match(outbox[0], /^Welcome → ada@example\.com \([0-9a-f-]+\)$/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await (await fetch(`${origin}/outbox`)).json()).length, 1);
    assert.deepEqual(await (await fetch(`${origin}/jobs`)).json(), {
      waiting: 0,
      delayed: 0,
      active: 0,
      dead: 0,
    });
  },
};

Deno.test("docs/guide.md gives the command its tests use", () => {
  assert.ok(guide.includes(`\`${COMMAND}\``), COMMAND);
});

/** The lines a block's `// → ` comments say it prints. */
function printed(code: string): string[] {
  return code.split("\n").flatMap((line) => {
    const at = line.indexOf("// → ");
    return at === -1 ? [] : [line.slice(at + 5)];
  });
}

const blocks = await codeBlocks("docs/guide.md");
for (const [index, { heading, code }] of blocks.entries()) {
  const needsRedis = code.includes('from "redis"');
  Deno.test({
    name: `docs/guide.md runs: ${heading} (block ${index + 1})`,
    ignore: needsRedis && redisServer === undefined,
  }, async () => {
    // Deno.serve prints where it listens; serve() is told to print it.
    const denoServe = /Deno\.serve\(\{ hostname: "127\.0\.0\.1", port: \d+ \}, /
      .test(code);
    const toolkitServe =
      /serve\(router\.fetch, \{ hostname: "127\.0\.0\.1", port: \d+(, \w+: \w+)* \}\)/
        .test(code);
    const serves = denoServe || toolkitServe;
    // A block that serves nothing must at least show what it does.
    assert.ok(
      serves || code.includes("console.log("),
      "a guide block is a whole program: it serves on 127.0.0.1 " +
        "(Deno.serve at the end) or prints what it shows",
    );
    const project = await makeProject();
    let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
    try {
      redis = needsRedis ? await startRedis(redisServer!) : undefined;
      await Deno.writeTextFile(
        `${project.dir}/main.ts`,
        code.replace(GUIDE_REDIS, redis?.url ?? GUIDE_REDIS).replace(
          /port: \d+/,
          toolkitServe
            ? "port: 0, onListen: (a) => console.log(`Listening on http://${a.hostname}:${a.port}/`)"
            : "port: 0",
        ),
      );
      if (code.includes('"./public"')) {
        await Deno.mkdir(`${project.dir}/public`);
        await Deno.writeTextFile(
          `${project.dir}/public/app.css`,
          "body { margin: 0 }",
        );
      }
      if (!serves) {
        const { success, stdout, stderr } = await new Deno.Command(
          Deno.execPath(),
          {
            args: COMMAND.split(" ").slice(1),
            cwd: project.dir,
            env: { NO_COLOR: "1" },
            stdout: "piped",
            stderr: "piped",
          },
        ).output();
        assert.ok(success, new TextDecoder().decode(stderr));
        // What the block says it prints (`// → line`), it prints, in order.
        const expected = printed(code);
        if (expected.length > 0) {
          const out = new TextDecoder().decode(stdout);
          assert.deepEqual(out.trimEnd().split("\n"), expected);
        }
        return;
      }
      // The Sessions block reads its signing secret from the environment.
      const app = await startCommand(project.dir, COMMAND, {
        SESSION_SECRET: crypto.randomUUID() + crypto.randomUUID(),
      });
      try {
        const known = Object.entries(checks).filter(([key]) =>
          code.includes(key)
        );
        for (const [, check] of known) await check(app.origin);
        if (known.length === 0) {
          const response = await fetch(`${app.origin}/`);
          await response.body?.cancel();
          assert.ok(response.status < 500, `GET / answered ${response.status}`);
        }
      } finally {
        await app.stop();
      }
    } finally {
      await redis?.stop();
      await project.remove();
    }
  });
}
