// The app's mail through durable jobs, with a real SMTP server
// (npm:smtp-server): down then up, refusing then recovered (dead letter,
// admin retry), the app SIGKILLed right after the reset answer, and the
// same write for known and unknown emails.
import assert from "node:assert/strict";
import { SMTPServer } from "smtp-server";
import {
  freePort,
  redisCommand,
  redisServerOrSkip,
  startRedis,
} from "../../_tools/redis.ts";
import { Client, testApp } from "./_test_app.ts";
import { startMain } from "./_test_server.ts";
import { createSmtpMailer } from "./mailer.ts";
import { mailKey, sendMail } from "./mail_jobs.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An SMTP server on `port` that keeps what it accepts; `refuse` answers 550. */
async function startSink(port: number, state = { refuse: false }) {
  const mails: string[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onRcptTo(_address, _session, callback) {
      if (state.refuse) {
        const error = Object.assign(new Error("550 mailbox unavailable"), {
          responseCode: 550,
        });
        return callback(error);
      }
      callback();
    },
    onData(stream, _session, callback) {
      let text = "";
      stream.on("data", (chunk: Uint8Array) => {
        text += new TextDecoder().decode(chunk);
      });
      stream.on("end", () => {
        mails.push(text.replace(/=\r?\n/g, ""));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) =>
    server.listen(port, "127.0.0.1", resolve)
  );
  return {
    mails,
    state,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The reset mails among what the sink got (registration mails a link too). */
function resets(mails: string[]): string[] {
  return mails.filter((mail) => /Subject: Reset your password/.test(mail));
}

async function until(check: () => boolean | Promise<boolean>, ms: number) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await sleep(50);
  }
}

Deno.test({
  name:
    "mail jobs: SMTP down when the reset is asked, up 20 s later: the mail arrives, once",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const port = freePort();
    const mailer = await createSmtpMailer({
      url: `smtp://127.0.0.1:${port}`,
      from: "no-reply@example.com",
    });
    const { app, close } = await testApp({
      mailer,
      mail: { attempts: 30, backoff: { initialMs: 500, maxMs: 4000 } },
    });
    let sink: Awaited<ReturnType<typeof startSink>> | undefined;
    try {
      await new Client(app).register("ada@example.com", "old password");
      const answer = await new Client(app).post("/password/forgot", {
        email: "ada@example.com",
      });
      assert.equal(answer.status, 200);
      await sleep(20_000);
      sink = await startSink(port);
      await until(() => resets(sink!.mails).length === 1, 15_000);
      await sleep(3000);
      assert.equal(resets(sink.mails).length, 1);
      assert.match(resets(sink.mails)[0], /To: ada@example\.com/);
    } finally {
      close();
      mailer.close();
      await sink?.stop();
    }
  },
});

Deno.test({
  name:
    "mail jobs: SMTP refusing: the mail is a dead letter; the admin page lists it with Retry (admins only, CSRF-protected); retried after recovery it is delivered",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const port = freePort();
    const sink = await startSink(port, { refuse: true });
    const mailer = await createSmtpMailer({
      url: `smtp://127.0.0.1:${port}`,
      from: "no-reply@example.com",
    });
    const { app, close, mailJobs } = await testApp({
      mailer,
      mail: { attempts: 3, backoff: { initialMs: 50, maxMs: 100 } },
    });
    try {
      await new Client(app).register("ada@example.com", "old password");
      await new Client(app).post("/password/forgot", {
        email: "ada@example.com",
      });
      // Registration mails a verification link too: the reset mail's job.
      const resetJob = async () =>
        (await mailJobs.queue.deadLetters()).find((job) =>
          (job.payload as { subject?: string }).subject ===
            "Reset your password"
        );
      await until(async () => (await resetJob()) !== undefined, 20_000);
      const dead = (await resetJob())!;
      assert.equal(dead.name, "mail");
      assert.equal(dead.attempts, 3);
      assert.match(dead.error, /550/);
      assert.equal(resets(sink.mails).length, 0);

      // A user who is no admin: 403 for the page and the retry.
      const user = new Client(app);
      await user.register("eve@example.com", "eve password");
      assert.equal((await user.get("/admin/jobs")).status, 403);
      const userRetry = await user.post(`/admin/jobs/${dead.id}/retry`, {});
      assert.equal(userRetry.status, 403);

      const admin = new Client(app);
      await admin.login("admin@example.com", "admin-password");
      const page = await admin.get("/admin/jobs");
      assert.equal(page.status, 200);
      const body = await page.text();
      assert.match(body, /to ada@example\.com: “Reset your password”/);
      assert.match(body, /550/);
      assert.ok(body.includes(`/admin/jobs/${dead.id}/retry`));
      assert.ok(!body.includes("/password/reset/"), "the link is not shown");

      // From another site: refused by csrf().
      const forged = await admin.request(`/admin/jobs/${dead.id}/retry`, {
        method: "POST",
        form: {},
        headers: {
          origin: "https://evil.example",
          "sec-fetch-site": "cross-site",
        },
      });
      assert.equal(forged.status, 403);
      await forged.body?.cancel();
      assert.equal((await resetJob())?.id, dead.id);

      sink.state.refuse = false;
      const retried = await admin.post(`/admin/jobs/${dead.id}/retry`, {});
      assert.equal(retried.status, 303);
      assert.equal(retried.headers.get("location"), "/admin/jobs");
      await until(() => resets(sink.mails).length === 1, 10_000);
      assert.match(resets(sink.mails)[0], /To: ada@example\.com/);
      assert.equal(await resetJob(), undefined);
      // Not dead any more: a second retry says so.
      const again = await admin.post(`/admin/jobs/${dead.id}/retry`, {});
      assert.equal(again.status, 303);
      const notice = await (await admin.get("/admin/jobs")).text();
      assert.match(notice, /not in the dead-letter list/);
    } finally {
      close();
      mailer.close();
      await sink.stop();
    }
  },
});

Deno.test('mail jobs: "Forgot password?" stores one job for a known and for an unknown email alike, and answers the same bytes', async () => {
  const { app, close, mailJobs } = await testApp({ noMailWorker: true });
  try {
    await new Client(app).register("ada@example.com");
    const before = (await mailJobs.queue.stats()).waiting;
    const known = await new Client(app).post("/password/forgot", {
      email: "ada@example.com",
    });
    const afterKnown = (await mailJobs.queue.stats()).waiting;
    const unknown = await new Client(app).post("/password/forgot", {
      email: "nobody@example.com",
    });
    const afterUnknown = (await mailJobs.queue.stats()).waiting;
    assert.equal(afterKnown - before, 1);
    assert.equal(afterUnknown - afterKnown, 1);
    assert.equal(known.status, unknown.status);
    assert.equal(await known.text(), await unknown.text());
  } finally {
    close();
  }
});

Deno.test("mail jobs: sendMail with one key sends one mail; the key is stored only as its digest", async () => {
  const sent: string[] = [];
  const { kv, close, mailJobs } = await testApp({
    mailer: { send: (mail) => Promise.resolve(void sent.push(mail.to)) },
  });
  try {
    const mail = {
      to: "ada@example.com",
      subject: "Hello",
      text: "Hi",
      key: "welcome:secret-token-123",
    };
    const first = await sendMail(mailJobs, mail);
    const second = await sendMail(mailJobs, mail);
    assert.deepEqual(second, { id: first.id, duplicate: true });
    await until(() => sent.length === 1, 5000);
    await sleep(200);
    assert.deepEqual(sent, ["ada@example.com"]);
    let sawDigest = false;
    for await (const entry of kv.list({ prefix: [] })) {
      const text = JSON.stringify(entry.key);
      assert.ok(!text.includes("secret-token-123"), text);
      if (text.includes(await mailKey(mail.key))) sawDigest = true;
    }
    assert.ok(sawDigest);
    await assert.rejects(
      sendMail(mailJobs, { ...mail, key: "" }),
      TypeError,
    );
  } finally {
    close();
  }
});

Deno.test({
  name:
    "mail jobs: the app SIGKILLed right after answering the reset form sends the mail once when started again on the same database",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "auth-mail-kill-" });
    const smtpPort = freePort();
    const sink = await startSink(smtpPort);
    const env = {
      DENO_KV_PATH: `${dir}/data/auth.sqlite`,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      MAIL_VISIBILITY_MS: "3000",
    };
    let server = await startMain(env);
    try {
      const register = await fetch(`${server.url}/auth/register`, {
        method: "POST",
        body: new URLSearchParams({
          email: "ada@example.com",
          password: "old password",
          name: "Ada",
        }),
        redirect: "manual",
      });
      await register.body?.cancel();
      assert.equal(register.status, 303);
      const answer = await fetch(`${server.url}/password/forgot`, {
        method: "POST",
        body: new URLSearchParams({ email: "ada@example.com" }),
      });
      Deno.kill(server.pid, "SIGKILL");
      assert.equal(answer.status, 200);
      await answer.body?.cancel();
      await server.stop().catch(() => {});
      const sentBeforeKill = resets(sink.mails).length;
      server = await startMain(env);
      await until(() => resets(sink.mails).length >= 1, 20_000);
      await sleep(5000);
      console.log(
        `  reset mails sent before the kill: ${sentBeforeKill}; in all: ${
          resets(sink.mails).length
        }`,
      );
      assert.equal(resets(sink.mails).length, 1);
      assert.match(resets(sink.mails)[0], /To: ada@example\.com/);
    } finally {
      await server.stop().catch(() => {});
      await sink.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const redisServer = await redisServerOrSkip();

Deno.test({
  name:
    "mail jobs: with SESSION_STORAGE=redis the mail queue is on Redis: the reset mail is sent, and the job is gone from Redis after",
  ignore: redisServer === undefined,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const redis = await startRedis(redisServer!);
    const dir = await Deno.makeTempDir({ prefix: "auth-mail-redis-" });
    const smtpPort = freePort();
    const sink = await startSink(smtpPort);
    const server = await startMain({
      DENO_KV_PATH: `${dir}/data/auth.sqlite`,
      SESSION_STORAGE: "redis",
      REDIS_URL: redis.url,
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
    });
    try {
      const register = await fetch(`${server.url}/auth/register`, {
        method: "POST",
        body: new URLSearchParams({
          email: "ada@example.com",
          password: "old password",
          name: "Ada",
        }),
        redirect: "manual",
      });
      await register.body?.cancel();
      const answer = await fetch(`${server.url}/password/forgot`, {
        method: "POST",
        body: new URLSearchParams({ email: "ada@example.com" }),
      });
      await answer.body?.cancel();
      assert.equal(answer.status, 200);
      await until(() => resets(sink.mails).length === 1, 20_000).catch(
        (error) => {
          const keys = new Deno.Command("redis-cli", {
            args: ["-p", new URL(redis.url).port, "keys", "*"],
          }).outputSync();
          throw new Error(
            `${error.message}\n${server.output()}\n${
              new TextDecoder().decode(keys.stdout)
            }`,
          );
        },
      );
      assert.match(resets(sink.mails)[0], /To: ada@example\.com/);
      // The queue's keys are Redis', under the "mail" hash tag, and empty.
      const port = Number(new URL(redis.url).port);
      await until(
        async () =>
          (await redisCommand(port, ["EXISTS", "jobs:{mail}:a"])) === 0,
        5000,
      );
      assert.equal(await redisCommand(port, ["LLEN", "jobs:{mail}:w"]), 0);
    } finally {
      await server.stop();
      await sink.stop();
      await redis.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
