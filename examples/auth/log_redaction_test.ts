// The access log never holds a live password reset or email verification
// token: the links' paths are logged as /password/reset/:token and
// /email/verify/:token (the tokens are stored hashed; a log line must not
// undo that), for the page, the form's POST and the Referer it sends.
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";
import { createConsoleMailer } from "./mailer.ts";

Deno.test("auth log: reset and verification tokens are redacted from every log line", async () => {
  const lines: string[] = [];
  const mails: string[] = [];
  const { app, close } = await testApp({
    appUrl: "https://auth.example",
    log: (line) => lines.push(line),
    // The reset mail only (registration sends a verification mail too).
    mailer: createConsoleMailer((text) => {
      if (/^Subject: Reset/m.test(text)) mails.push(text);
    }),
  });
  try {
    await new Client(app).register("ada@example.com");
    const client = new Client(app);
    await client.post("/password/forgot", { email: "ada@example.com" });
    for (let i = 0; i < 200 && mails.length < 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const link = mails[0]?.match(/\/password\/reset\/([\w-]{43})/);
    assert.ok(link, mails.join("\n"));
    const [path, token] = link;

    const form = await read(await client.get(path));
    assert.equal(form.status, 200);
    const saved = await client.request(path, {
      method: "POST",
      form: { password: "new password" },
      headers: { Referer: `https://auth.example${path}` },
    });
    assert.equal(saved.status, 303);
    await saved.body?.cancel();
    const verify = await client.get(`/email/verify/${token}`);
    await verify.body?.cancel();

    const mentions = lines.filter((line) => line.includes("/password/reset/"));
    assert.equal(mentions.length, 2, lines.join("\n"));
    for (const line of lines) {
      assert.ok(!line.includes(token), `token in the log: ${line}`);
    }
    assert.match(mentions[0], / GET \/password\/reset\/:token 200 /);
    assert.match(mentions[1], / POST \/password\/reset\/:token 303 /);
    assert.ok(lines.some((line) => line.includes("/email/verify/:token")));
  } finally {
    close();
  }
});
