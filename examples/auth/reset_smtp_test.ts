// "Forgot password?" end to end with a real SMTP server on 127.0.0.1
// (npm:smtp-server, capturing the message): through the real main.ts
// with SMTP_URL, and in process for the expiry (a 1 s lifetime) and for
// the timing of known against unknown emails.
import assert from "node:assert/strict";
import { startMain } from "./_test_server.ts";
import {
  type ReceivedMail,
  type SmtpSink,
  startSmtpSink,
} from "./_test_smtp.ts";
import { Client, read, testApp } from "./_test_app.ts";
import { createSmtpMailer } from "./mailer.ts";

/** A cookie jar over fetch, for the subprocess. */
function browser(base: string) {
  let cookie = "";
  return async (path: string, form?: Record<string, string>) => {
    const response = await fetch(base + path, {
      method: form ? "POST" : "GET",
      headers: { cookie, "sec-fetch-site": "same-origin" },
      body: form ? new URLSearchParams(form) : undefined,
      redirect: "manual",
    });
    const set = response.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    return {
      status: response.status,
      location: response.headers.get("location"),
      body: await response.text(),
    };
  };
}

function linkIn(text: string, origin: string): string {
  const escaped = origin.replace(/[.:/]/g, "\\$&");
  const match = text.match(
    new RegExp(`${escaped}/password/reset/[A-Za-z0-9_-]{43}`),
  );
  assert.ok(match, text);
  return new URL(match[0]).pathname;
}

/** The reset mails received (registration sends verification mails too). */
function resets(smtp: SmtpSink): ReceivedMail[] {
  return smtp.mails.filter((m) => /Subject: Reset your password/.test(m.text));
}

/** Waits (at most 10 s) for reset mail number `n` (1-based). */
async function resetMail(smtp: SmtpSink, n: number): Promise<ReceivedMail> {
  for (let i = 0; i < 1000 && resets(smtp).length < n; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const mail = resets(smtp)[n - 1];
  if (!mail) throw new Error(`reset mail ${n} never came`);
  return mail;
}

Deno.test({
  name:
    "password reset over SMTP through main.ts: one mail, the link works once, other sessions end, an unknown email gets the same answer",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const smtp = await startSmtpSink();
    const dir = await Deno.makeTempDir({ prefix: "auth-smtp-" });
    const server = await startMain({
      DENO_KV_PATH: `${dir}/auth.sqlite`,
      SMTP_URL: smtp.url,
      MAIL_FROM: "Auth example <no-reply@example.com>",
    });
    const origin = server.url.replace("127.0.0.1", "localhost");
    try {
      const laptop = browser(server.url);
      await laptop("/auth/register", {
        name: "Ada",
        email: "ada@example.com",
        password: "old password",
      });
      assert.equal((await laptop("/dashboard")).status, 200);

      const stranger = browser(server.url);
      const known = await stranger("/password/forgot", {
        email: "ada@example.com",
      });
      const unknown = await browser(server.url)("/password/forgot", {
        email: "nobody@example.com",
      });
      assert.equal(known.status, 200);
      assert.equal(unknown.status, known.status);
      assert.equal(unknown.body, known.body);

      const mail = await resetMail(smtp, 1);
      assert.deepEqual(mail.to, ["ada@example.com"]);
      assert.equal(mail.from, "no-reply@example.com");
      assert.match(mail.text, /Subject: Reset your password/);
      const path = linkIn(mail.text, origin);
      assert.equal((await stranger(path)).status, 200);
      const saved = await stranger(path, { password: "new password" });
      assert.equal(saved.status, 303);
      assert.equal(saved.location, "/auth/login");
      assert.equal((await stranger(path)).status, 400, "used up");
      assert.equal(
        (await stranger(path, { password: "third password" })).status,
        400,
      );
      // The laptop's session ended.
      const after = await laptop("/dashboard");
      assert.equal(after.status, 302);
      assert.match(after.location!, /^\/auth\/login/);

      const fresh = browser(server.url);
      const login = await fresh("/auth/login", {
        email: "ada@example.com",
        password: "new password",
      });
      assert.equal(login.location, "/dashboard");
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(resets(smtp).length, 1, "no mail for the unknown email");
    } finally {
      await server.stop();
      await smtp.stop();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name:
    "password reset over SMTP: the link expires (1 s lifetime); answers for known and unknown emails take the same time",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const smtp = await startSmtpSink();
    const mailer = await createSmtpMailer({
      url: smtp.url,
      from: "no-reply@example.com",
    });
    const { app, close } = await testApp({
      appUrl: "https://auth.example",
      mailer,
      resetTtlMs: 1000,
    });
    try {
      await new Client(app).register("ada@example.com", "old password");
      const client = new Client(app);
      await client.post("/password/forgot", { email: "ada@example.com" });
      const path = linkIn(
        (await resetMail(smtp, 1)).text,
        "https://auth.example",
      );
      assert.equal((await client.get(path)).status, 200);
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await client.get(path)).status, 400);
      assert.equal(
        (await client.post(path, { password: "new password" })).status,
        400,
      );

      // Timing: 15 accounts; their emails and 15 unknown ones, interleaved,
      // each from its own address (the limits count per address and email).
      // A sign test on pairs (which of the two answered faster), the
      // order within a pair alternating: with no difference, each is
      // faster in about half the pairs; a steady difference of even half a
      // millisecond makes one faster in nearly all (the test that found
      // the background work slowing the known email's answer).
      const rounds = 30;
      for (let i = 0; i < rounds; i++) {
        await new Client(app).register(`user${i}@example.com`);
      }
      // Their verification mails are out before the answers are timed.
      await smtp.mail(2 + rounds);
      const times = { known: [] as number[], unknown: [] as number[] };
      const bodies = new Set<string>();
      let knownSlower = 0;
      for (let i = 0; i < rounds; i++) {
        const pair = { known: 0, unknown: 0 };
        const order = i % 2 === 0
          ? ["known", "unknown"] as const
          : ["unknown", "known"] as const;
        for (const kind of order) {
          const email = kind === "known"
            ? `user${i}@example.com`
            : `stranger${i}@example.com`;
          const start = performance.now();
          const answer = await read(
            await new Client(app).post("/password/forgot", { email }),
          );
          pair[kind] = performance.now() - start;
          times[kind].push(pair[kind]);
          assert.equal(answer.status, 200);
          bodies.add(answer.body);
        }
        if (pair.known > pair.unknown) knownSlower++;
      }
      assert.equal(bodies.size, 1, "one body for every email");
      const median = (values: number[]) =>
        [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      console.log(
        `forgot-password answer: known ${median(times.known).toFixed(2)} ms, ` +
          `unknown ${median(times.unknown).toFixed(2)} ms (medians); ` +
          `the known one slower in ${knownSlower} of ${rounds} pairs`,
      );
      // 8..22 of 30: outside it by chance with probability 0.5 %.
      assert.ok(
        knownSlower >= 8 && knownSlower <= 22,
        `the known email's answer was slower in ${knownSlower} of ${rounds} pairs`,
      );
      await resetMail(smtp, 1 + rounds);
    } finally {
      close();
      mailer.close();
      await smtp.stop();
    }
  },
});
