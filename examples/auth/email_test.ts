// Verified email and email change, over HTTP in process, on an in-memory KV,
// with a mailer that keeps every message.
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";
import { createMailbox } from "./_test_mailbox.ts";
import { confirm } from "./_test_confirm.ts";
import { createUserStore } from "./users.ts";
import { createEmailLinks } from "./email_verification.ts";
import { EMAIL_LINK_LIMIT } from "./controllers/email.ts";

async function setup() {
  const box = createMailbox();
  const test = await testApp({ mailer: box.mailer });
  return { ...test, box, users: createUserStore(test.kv) };
}

Deno.test("verified email: registration mails a link; the profile says not verified until it is opened, once", async () => {
  const { app, kv, box, users, close } = await setup();
  try {
    const ada = new Client(app);
    const registered = await ada.register("ada@example.com");
    assert.equal(registered.status, 303);
    const welcome = await read(await ada.get("/dashboard"));
    assert.match(welcome.body, /role="status">Welcome, Ada!</);
    assert.match(welcome.body, /We sent a link to <strong>ada@example.com/);
    assert.match(welcome.body, /Send again/);
    const mail = await box.next("ada@example.com", /Verify your email/);
    assert.match(mail.text, /works once, for 24 hours/);
    const path = box.link(mail);
    assert.match(path, /^\/email\/verify\/[\w-]{43}$/);

    const before = await read(await ada.get("/profile"));
    assert.match(before.body, /not verified/);
    assert.match(before.body, /Send again/);
    assert.equal(
      (await users.findByEmail("ada@example.com"))!.emailVerified,
      undefined,
    );

    // Hashed at rest: the token itself is nowhere in KV.
    const token = path.split("/").pop()!;
    for await (const entry of kv.list({ prefix: [] })) {
      assert.ok(
        !JSON.stringify(entry, (_, v) => typeof v === "bigint" ? String(v) : v)
          .includes(token),
        `token stored in ${JSON.stringify(entry.key)}`,
      );
    }

    const opened = await ada.get(path);
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get("location"), "/profile");
    const after = await read(await ada.get("/profile"));
    assert.match(after.body, /ada@example.com is verified/);
    assert.doesNotMatch(after.body, /not verified/);
    assert.doesNotMatch(after.body, /Send again/);
    assert.equal(
      (await users.findByEmail("ada@example.com"))!.emailVerified,
      true,
    );

    const again = await read(await ada.get(path));
    assert.equal(again.status, 400);
    assert.match(again.body, /does not work any more/);
    assert.match(again.body, /send a new link/);
  } finally {
    close();
  }
});

Deno.test("verified email: a guest opening the link verifies it and is sent to log in", async () => {
  const { app, box, users, close } = await setup();
  try {
    await new Client(app).register("bo@example.com");
    const path = box.link(await box.next("bo@example.com"));
    const guest = new Client(app);
    const opened = await guest.get(path);
    assert.equal(opened.status, 303);
    assert.equal(opened.headers.get("location"), "/auth/login");
    assert.match(
      (await read(await guest.get("/auth/login"))).body,
      /is verified/,
    );
    assert.equal(
      (await users.findByEmail("bo@example.com"))!.emailVerified,
      true,
    );
  } finally {
    close();
  }
});

Deno.test("verified email: a link opened by another signed-in user changes nothing, and still works for its owner", async () => {
  const { app, box, users, close } = await setup();
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com");
    const path = box.link(await box.next("ada@example.com"));
    const eve = new Client(app);
    await eve.register("eve@example.com");
    const refused = await read(await eve.get(path));
    assert.equal(refused.status, 403);
    assert.match(refused.body, /belongs to another account/);
    assert.match(refused.body, /Log out, then open the link again/);
    assert.equal(
      (await users.findByEmail("ada@example.com"))!.emailVerified,
      undefined,
    );
    assert.equal(
      (await users.findByEmail("eve@example.com"))!.emailVerified,
      undefined,
    );
    assert.equal((await ada.get(path)).status, 303);
    assert.equal(
      (await users.findByEmail("ada@example.com"))!.emailVerified,
      true,
    );
  } finally {
    close();
  }
});

Deno.test("verified email: 'Send again' replaces the link, and is limited per user", async () => {
  const { app, box, close } = await setup();
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com");
    const first = box.link(await box.next("ada@example.com"));
    for (let i = 0; i < EMAIL_LINK_LIMIT; i++) {
      const sent = await ada.post("/email/verify");
      assert.equal(sent.status, 303);
    }
    const latest = box.link(await box.next("ada@example.com"));
    for (let i = 1; i < EMAIL_LINK_LIMIT; i++) {
      await box.next("ada@example.com");
    }
    const refused = await ada.post("/email/verify");
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.match(await refused.text(), /You can ask again in \d+ minutes/);
    // The first link was replaced.
    assert.equal((await ada.get(first)).status, 400);
    // A guest cannot ask.
    const guest = await new Client(app).post("/email/verify");
    assert.equal(guest.status, 302);
    void latest;
  } finally {
    close();
  }
});

Deno.test("email links: expire after their time, and a verify link for an address the user left verifies nothing", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const users = createUserStore(kv);
    const user = await users.create({
      email: "ada@example.com",
      name: "Ada",
      password: "x",
    });
    const short = createEmailLinks(kv, { ttlMs: 20 });
    const token = await short.issue(user.id, user.email, "verify");
    assert.equal((await short.check(token))?.userId, user.id);
    await new Promise((resolve) => setTimeout(resolve, 40));
    assert.equal(await short.check(token), null);
    assert.equal(await short.consume(token), null);
    assert.equal(await short.check("not-a-token"), null);

    await users.changeEmail(user.id, "ada@new.example");
    assert.equal(
      await users.markEmailVerified(user.id, "ada@example.com"),
      null,
    );
  } finally {
    kv.close();
  }
});

Deno.test("email change: a link to the new address, a notice to the old; the address changes only when the link is opened by its account", async () => {
  const { app, box, users, close } = await setup();
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com", "ada password");
    await box.next("ada@example.com", /Verify/);
    // A fresh confirmation of the password first.
    const unconfirmed = await ada.get("/email/change");
    assert.equal(unconfirmed.status, 303);
    assert.equal(
      unconfirmed.headers.get("location"),
      "/auth/confirm?returnTo=%2Femail%2Fchange",
    );
    const posted = await ada.post("/email/change", { email: "x@new.example" });
    assert.equal(posted.status, 303);
    assert.match(posted.headers.get("location")!, /^\/auth\/confirm/);
    await confirm(ada, "ada password", "/email/change");
    const form = await read(await ada.get("/email/change"));
    assert.equal(form.status, 200);
    assert.match(form.body, /New email/);

    // Bad input says what to do.
    const same = await read(
      await ada.post("/email/change", { email: "ADA@example.com" }),
    );
    assert.equal(same.status, 422);
    assert.match(same.body, /That is your address already/);
    const eve = new Client(app);
    await eve.register("eve@example.com");
    const taken = await read(
      await ada.post("/email/change", { email: "eve@example.com" }),
    );
    assert.equal(taken.status, 422);
    assert.match(taken.body, /Another account has this address/);

    const asked = await ada.post("/email/change", {
      email: "ada@new.example",
    });
    assert.equal(asked.status, 303);
    assert.match(
      (await read(await ada.get("/profile"))).body,
      /We sent a link to ada@new.example/,
    );
    const link = box.link(await box.next("ada@new.example", /Confirm/));
    const notice = await box.next("ada@example.com", /about to change/);
    assert.match(notice.text, /ada@new\.example/);
    assert.doesNotMatch(notice.text, /email\/verify/);
    assert.equal(
      (await users.findByEmail("ada@example.com"))?.email,
      "ada@example.com",
    );
    assert.equal(await users.findByEmail("ada@new.example"), null);

    // Opened by another signed-in user: nothing changes.
    const refused = await read(await eve.get(link));
    assert.equal(refused.status, 403);
    assert.equal(
      (await users.findByEmail("eve@example.com"))?.email,
      "eve@example.com",
    );
    assert.equal(await users.findByEmail("ada@new.example"), null);
    assert.ok(await users.findByEmail("ada@example.com"));

    // Opened by a guest: log in first, then back here.
    const guest = new Client(app);
    const toLogin = await guest.get(link);
    assert.equal(toLogin.status, 302);
    assert.equal(
      toLogin.headers.get("location"),
      `/auth/login?returnTo=${encodeURIComponent(link)}`,
    );
    assert.equal(await users.findByEmail("ada@new.example"), null);

    // Opened by Ada: moved, verified.
    const moved = await ada.get(link);
    assert.equal(moved.status, 303);
    const profile = await read(await ada.get("/profile"));
    assert.match(profile.body, /Your email address is now ada@new.example/);
    const user = (await users.findByEmail("ada@new.example"))!;
    assert.equal(user.emailVerified, true);
    assert.equal(await users.findByEmail("ada@example.com"), null);
    assert.equal((await ada.get(link)).status, 400);

    // The new address signs in; the old one is free to register again.
    assert.equal(
      (await new Client(app).login("ada@new.example", "ada password"))
        .headers.get("location"),
      "/dashboard",
    );
    const fresh = new Client(app);
    assert.equal(
      (await fresh.register("ada@example.com")).headers.get("location"),
      "/dashboard",
    );
    await box.next("ada@example.com", /Verify/);
  } finally {
    close();
  }
});

Deno.test("email change: guests are sent to log in", async () => {
  const { app, close } = await setup();
  try {
    const guest = new Client(app);
    assert.equal((await guest.get("/email/change")).status, 302);
    assert.equal(
      (await guest.post("/email/change", { email: "x@example.com" })).status,
      302,
    );
  } finally {
    close();
  }
});

Deno.test("email change: an address another account took since the link was sent is refused (409), and nothing changes", async () => {
  const { app, box, users, close } = await setup();
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com");
    await box.next("ada@example.com", /Verify/);
    await confirm(ada, "correct horse", "/email/change");
    await ada.post("/email/change", { email: "shared@example.com" });
    const link = box.link(await box.next("shared@example.com", /Confirm/));
    await new Client(app).register("shared@example.com");
    await box.next("shared@example.com", /Verify/);
    const refused = await read(await ada.get(link));
    assert.equal(refused.status, 409);
    assert.match(refused.body, /now belongs to another account/);
    assert.match(refused.body, /Choose another address/);
    assert.ok(await users.findByEmail("ada@example.com"));
    assert.notEqual(
      (await users.findByEmail("shared@example.com"))?.id,
      (await users.findByEmail("ada@example.com"))?.id,
    );
  } finally {
    close();
  }
});
