// "Forgot password?" in-process, on an in-memory KV, with the console
// mailer writing into an array (the SMTP run is reset_smtp_test.ts).
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";
import { createConsoleMailer } from "./mailer.ts";
import { RESET_EMAIL_LIMIT } from "./controllers/reset.ts";

const APP_URL = "https://auth.example";

async function setup(options: { resetTtlMs?: number } = {}) {
  const mails: string[] = [];
  const test = await testApp({
    appUrl: APP_URL,
    // Registration's verification mails are email_test.ts's concern.
    mailer: createConsoleMailer((text) => {
      if (!/^Subject: Verify your email/m.test(text)) mails.push(text);
    }),
    ...options,
  });
  /** Waits for mail number `n` (1-based), sent after the answer. */
  async function mail(n: number): Promise<string> {
    for (let i = 0; i < 200 && mails.length < n; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.ok(mails.length >= n, `mail ${n} never came (${mails.length})`);
    return mails[n - 1];
  }
  return { ...test, mails, mail };
}

function linkIn(mail: string): string {
  const link = mail.match(
    /https:\/\/auth\.example\/password\/reset\/[\w-]{43}/,
  );
  assert.ok(link, mail);
  return new URL(link[0]).pathname;
}

Deno.test("forgot password: the same status and body for an account's email and an unknown one; only the account gets mail", async () => {
  const { app, close, mails, mail } = await setup();
  await new Client(app).register("ada@example.com");
  const known = await read(
    await new Client(app).post("/password/forgot", {
      email: "Ada@Example.com",
    }),
  );
  const unknown = await read(
    await new Client(app).post("/password/forgot", {
      email: "nobody@example.com",
    }),
  );
  assert.equal(known.status, 200);
  assert.equal(unknown.status, known.status);
  assert.equal(unknown.body, known.body);
  assert.match(known.body, /If an account has that email/);
  const sent = await mail(1);
  assert.match(sent, /^Mail to ada@example\.com\nSubject: Reset your password/);
  assert.match(sent, /works once, for 30 minutes/);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(mails.length, 1, "no mail for the unknown email");
  close();
});

Deno.test("password reset: the link works once, the new password signs in, and every other session of the user ends", async () => {
  const { app, close, mail } = await setup();
  const laptop = new Client(app);
  await laptop.register("ada@example.com", "old password");
  const phone = new Client(app);
  assert.equal(
    (await phone.login("ada@example.com", "old password")).status,
    303,
  );
  assert.equal((await phone.get("/dashboard")).status, 200);

  const stranger = new Client(app);
  await stranger.post("/password/forgot", { email: "ada@example.com" });
  const path = linkIn(await mail(1));
  const form = await read(await stranger.get(path));
  assert.equal(form.status, 200);
  assert.match(form.body, new RegExp(`action="${path}"`));

  const saved = await stranger.post(path, { password: "new password" });
  assert.equal(saved.status, 303);
  assert.equal(saved.headers.get("location"), "/auth/login");
  assert.match(
    (await read(await stranger.get("/auth/login"))).body,
    /Your password has been changed, and every session of your account has ended/,
  );

  // Both earlier sessions are signed out on their next request.
  for (const client of [laptop, phone]) {
    const answer = await client.get("/dashboard");
    assert.equal(answer.status, 302);
    assert.match(answer.headers.get("location")!, /^\/auth\/login/);
  }
  // The link is used up.
  assert.equal((await stranger.get(path)).status, 400);
  const again = await read(
    await stranger.post(path, { password: "third password" }),
  );
  assert.equal(again.status, 400);
  assert.match(again.body, /This link does not work any more/);

  // The new password signs in (and that session stays), the old does not.
  const fresh = new Client(app);
  assert.equal(
    (await fresh.login("ada@example.com", "old password")).headers.get(
      "location",
    ),
    "/auth/login",
  );
  assert.equal(
    (await fresh.login("ada@example.com", "new password")).headers.get(
      "location",
    ),
    "/dashboard",
  );
  assert.equal((await fresh.get("/dashboard")).status, 200);
  assert.equal((await fresh.get("/profile")).status, 200);
  close();
});

Deno.test("password reset: a link stops working when its time is over", async () => {
  const { app, close, mail } = await setup({ resetTtlMs: 1000 });
  await new Client(app).register("ada@example.com", "old password");
  const client = new Client(app);
  await client.post("/password/forgot", { email: "ada@example.com" });
  const path = linkIn(await mail(1));
  assert.equal((await client.get(path)).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1100));
  assert.equal((await client.get(path)).status, 400);
  assert.equal(
    (await client.post(path, { password: "new password" })).status,
    400,
  );
  const login = await new Client(app).login("ada@example.com", "old password");
  assert.equal(
    login.headers.get("location"),
    "/dashboard",
    "password unchanged",
  );
  close();
});

Deno.test("password reset: asking again replaces the earlier link; the link's host is APP_URL, never the request's", async () => {
  const { app, close, mail } = await setup();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  await client.request("/password/forgot", {
    method: "POST",
    form: { email: "ada@example.com" },
    headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
  });
  const first = linkIn(await mail(1));
  await client.post("/password/forgot", { email: "ada@example.com" });
  const second = linkIn(await mail(2));
  assert.notEqual(first, second);
  assert.equal((await client.get(first)).status, 400);
  assert.equal((await client.get(second)).status, 200);
  close();
});

Deno.test("password reset: only the token's SHA-256 is stored, never the token", async () => {
  const { app, kv, close, mail } = await setup();
  await new Client(app).register("ada@example.com");
  await new Client(app).post("/password/forgot", { email: "ada@example.com" });
  const token = linkIn(await mail(1)).split("/").pop()!;
  for await (const entry of kv.list({ prefix: [] })) {
    const text = JSON.stringify([entry.key, entry.value]);
    assert.ok(!text.includes(token), `KV entry ${entry.key} holds the token`);
  }
  close();
});

Deno.test("password reset: bad input gets 422 with the problem beside the field and the focus on it; the link keeps working", async () => {
  const { app, close, mail } = await setup();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  const bad = await read(
    await client.post("/password/forgot", { email: "not an email" }),
  );
  assert.equal(bad.status, 422);
  assert.match(
    bad.body,
    /aria-invalid="true" aria-describedby="email-error" autofocus/,
  );
  assert.match(bad.body, /Please enter a valid email address\./);

  await client.post("/password/forgot", { email: "ada@example.com" });
  const path = linkIn(await mail(1));
  const short = await read(await client.post(path, { password: "short" }));
  assert.equal(short.status, 422);
  assert.match(
    short.body,
    /id="password"[^>]*aria-invalid="true"[^>]*autofocus/,
  );
  assert.match(short.body, /at least 8 characters/);
  assert.equal((await client.get(path)).status, 200, "still works");
  close();
});

Deno.test(`forgot password: ${RESET_EMAIL_LIMIT} mails per email per hour (one more every 20 minutes), then 429 for any email alike`, async () => {
  const { app, close, mails, mail } = await setup();
  await new Client(app).register("ada@example.com");
  for (const email of ["ada@example.com", "nobody@example.com"]) {
    for (let i = 0; i < RESET_EMAIL_LIMIT; i++) {
      const ok = await new Client(app).post("/password/forgot", { email });
      assert.equal(ok.status, 200);
    }
    const over = await read(
      await new Client(app).post("/password/forgot", { email }),
    );
    assert.equal(over.status, 429);
    assert.match(over.body, /Too many requests\. Try again in 20 minutes\./);
  }
  await mail(RESET_EMAIL_LIMIT);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(mails.length, RESET_EMAIL_LIMIT);
  close();
});

Deno.test("forgot password: one client address gets 20 requests an hour over both forms", async () => {
  const { app, close } = await setup();
  const client = new Client(app);
  for (let i = 0; i < 20; i++) {
    const email = `user${i}@example.com`;
    assert.equal(
      (await client.post("/password/forgot", { email })).status,
      200,
    );
  }
  assert.equal(
    (await client.post("/password/forgot", { email: "x@example.com" })).status,
    429,
  );
  assert.equal(
    (await client.get(`/password/reset/${"a".repeat(43)}`)).status,
    429,
  );
  close();
});
