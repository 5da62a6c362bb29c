// Deleting one's own account, over HTTP in process, on an in-memory KV.
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";
import { createMailbox } from "./_test_mailbox.ts";
import { createUserStore } from "./users.ts";
import { createPasskeyStore } from "./passkeys.ts";
import { createIdentityStore } from "./oauth.ts";
import { ACCOUNT_DELETED } from "./controllers/delete_account.ts";
import { confirm } from "./_test_confirm.ts";

async function setup() {
  const box = createMailbox();
  const test = await testApp({ mailer: box.mailer });
  return {
    ...test,
    box,
    users: createUserStore(test.kv),
    passkeys: createPasskeyStore(test.kv),
    identities: createIdentityStore(test.kv),
  };
}

Deno.test("delete account: typing the email removes the user, their sessions on every device, passkeys, provider links and links; the email can register again", async () => {
  const { app, box, users, passkeys, identities, close } = await setup();
  try {
    const laptop = new Client(app);
    await laptop.register("ada@example.com", "ada password");
    const verify = box.link(await box.next("ada@example.com", /Verify/));
    const phone = new Client(app);
    assert.equal(
      (await phone.login("ada@example.com", "ada password")).headers.get(
        "location",
      ),
      "/dashboard",
    );
    assert.equal((await phone.get("/dashboard")).status, 200);
    const ada = (await users.findByEmail("ada@example.com"))!;
    await passkeys.add({
      id: "ada-passkey",
      userId: String(ada.id),
      publicKey: "AA",
      counter: 0,
      backupEligible: false,
      backedUp: false,
      name: "Laptop",
      createdAt: new Date(),
    });
    assert.ok(await identities.link("github", "ada-sub", ada.id));
    await new Client(app).post("/password/forgot", {
      email: "ada@example.com",
    });
    const reset = box.link(await box.next("ada@example.com", /Reset/));

    // The profile links to the page; the page says what goes.
    assert.match(
      (await read(await laptop.get("/profile"))).body,
      /href="\/profile\/delete"/,
    );
    // A fresh confirmation of the password first.
    const unconfirmed = await laptop.post("/profile/delete", {
      email: "ada@example.com",
    });
    assert.equal(unconfirmed.status, 303);
    assert.match(unconfirmed.headers.get("location")!, /^\/auth\/confirm/);
    assert.ok(await users.findById(ada.id));
    await confirm(laptop, "ada password", "/profile/delete");
    const form = await read(await laptop.get("/profile/delete"));
    assert.equal(form.status, 200);
    assert.match(form.body, /sessions on every device/);

    // The wrong email (or none) changes nothing and says what to type.
    const wrong = await read(
      await laptop.post("/profile/delete", { email: "eve@example.com" }),
    );
    assert.equal(wrong.status, 422);
    assert.match(wrong.body, /Type ada@example.com to delete the account/);
    assert.equal(
      (await laptop.post("/profile/delete", {})).status,
      422,
    );
    assert.ok(await users.findById(ada.id));

    const deleted = await laptop.post("/profile/delete", {
      email: "ADA@example.com",
    });
    assert.equal(deleted.status, 303);
    assert.equal(deleted.headers.get("location"), "/auth/login");
    const login = await read(await laptop.get("/auth/login"));
    assert.match(login.body, new RegExp(ACCOUNT_DELETED.slice(0, 40)));

    // The session open on the phone is refused at once.
    const refused = await phone.get("/dashboard");
    assert.equal(refused.status, 302);
    assert.match(refused.headers.get("location")!, /^\/auth\/login/);
    assert.equal((await laptop.get("/profile")).status, 302);

    // Everything of the account is gone.
    assert.equal(await users.findById(ada.id), null);
    assert.equal(await users.findByEmail("ada@example.com"), null);
    assert.deepEqual(await passkeys.listByUser(ada.id), []);
    assert.equal(await passkeys.get("ada-passkey"), null);
    assert.equal(await identities.find("github", "ada-sub"), null);
    assert.equal((await laptop.get(reset)).status, 400);
    assert.equal((await laptop.get(verify)).status, 400);
    // Its password no longer signs in.
    assert.match(
      (await new Client(app).login("ada@example.com", "ada password"))
        .headers.get("location")!,
      /^\/auth\/login/,
    );

    // The admin list no longer shows it.
    const admin = new Client(app);
    await admin.login("admin@example.com", "admin-password");
    const list = await read(await admin.get("/admin/users"));
    assert.equal(list.status, 200);
    assert.doesNotMatch(list.body, /ada@example\.com/);

    // The email registers again: a new account, which the phone's old
    // session does not open.
    const again = new Client(app);
    assert.equal(
      (await again.register("ada@example.com", "new password")).headers.get(
        "location",
      ),
      "/dashboard",
    );
    await box.next("ada@example.com", /Verify/);
    const fresh = (await users.findByEmail("ada@example.com"))!;
    assert.notEqual(fresh.id, ada.id);
    assert.equal(fresh.emailVerified, undefined);
    assert.equal((await phone.get("/dashboard")).status, 302);
  } finally {
    close();
  }
});

Deno.test("delete account: the only admin is told to make another admin first", async () => {
  const { app, users, close } = await setup();
  try {
    const admin = new Client(app);
    await admin.login("admin@example.com", "admin-password");
    await confirm(admin, "admin-password", "/profile/delete");
    const refused = await read(
      await admin.post("/profile/delete", { email: "admin@example.com" }),
    );
    assert.equal(refused.status, 409);
    assert.match(refused.body, /make another user an admin/);
    assert.ok(await users.findByEmail("admin@example.com"));
  } finally {
    close();
  }
});

Deno.test("delete account: guests are sent to log in, and back after", async () => {
  const { app, close } = await setup();
  try {
    const guest = new Client(app);
    const response = await guest.get("/profile/delete");
    assert.equal(response.status, 302);
    assert.equal(
      response.headers.get("location"),
      "/auth/login?returnTo=%2Fprofile%2Fdelete",
    );
    assert.equal(
      (await guest.post("/profile/delete", { email: "x@example.com" })).status,
      302,
    );
  } finally {
    close();
  }
});

Deno.test("delete account: the account's mail still waiting is removed; another account's stays", async () => {
  const { app, mailJobs, close } = await testApp({ noMailWorker: true });
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com", "ada password");
    await confirm(ada, "ada password", "/email/change");
    await ada.post("/email/change", { email: "ada@new.example" });
    await new Client(app).register("bob@example.com");
    // Ada: a verification, a change link and its notice; Bob: one.
    assert.equal((await mailJobs.queue.stats()).waiting, 4);
    await confirm(ada, "ada password", "/profile/delete");
    const deleted = await ada.post("/profile/delete", {
      email: "ada@example.com",
    });
    assert.equal(deleted.status, 303);
    assert.equal((await mailJobs.queue.stats()).waiting, 1);
  } finally {
    close();
  }
});
