// Changing the password of a signed-in account, over HTTP in process, with
// sessions on Deno KV: after a confirmation, every other device is signed
// out and this one stays in.
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";
import { confirm } from "./_test_confirm.ts";
import { createMailbox } from "./_test_mailbox.ts";
import { PASSWORD_SAVED } from "./controllers/password.ts";

Deno.test("change password: after a confirmation; this device stays in, every other one is signed out", async () => {
  const box = createMailbox();
  const { app, close } = await testApp({ mailer: box.mailer });
  try {
    const laptop = new Client(app);
    await laptop.register("ada@example.com", "old password");
    const phone = new Client(app);
    await phone.login("ada@example.com", "old password");
    assert.equal((await phone.get("/dashboard")).status, 200);
    assert.match(
      (await read(await laptop.get("/profile"))).body,
      /href="\/profile\/password"/,
    );

    // A fresh confirmation first.
    const unconfirmed = await laptop.get("/profile/password");
    assert.equal(unconfirmed.status, 303);
    assert.equal(
      unconfirmed.headers.get("location"),
      "/auth/confirm?returnTo=%2Fprofile%2Fpassword",
    );
    await confirm(laptop, "old password", "/profile/password");
    const form = await read(await laptop.get("/profile/password"));
    assert.equal(form.status, 200);
    assert.match(form.body, /Every other device/);

    const short = await read(
      await laptop.post("/profile/password", { password: "short" }),
    );
    assert.equal(short.status, 422);
    assert.match(short.body, /at least 8 characters/);

    const saved = await laptop.post("/profile/password", {
      password: "new password",
    });
    assert.equal(saved.status, 303);
    assert.equal(saved.headers.get("location"), "/profile/security");
    const security = await read(await laptop.get("/profile/security"));
    assert.equal(security.status, 200);
    assert.match(security.body, new RegExp(PASSWORD_SAVED.slice(0, 30)));
    assert.doesNotMatch(
      security.body,
      /action="\/profile\/sessions\/[\w-]{22}"/,
    );

    // The phone is refused at once; the laptop is in.
    const refused = await phone.get("/dashboard");
    assert.equal(refused.status, 302);
    assert.match(refused.headers.get("location")!, /^\/auth\/login/);
    assert.equal((await laptop.get("/dashboard")).status, 200);

    // The new password signs in, the old one does not.
    assert.equal(
      (await new Client(app).login("ada@example.com", "new password"))
        .headers.get("location"),
      "/dashboard",
    );
    assert.match(
      (await new Client(app).login("ada@example.com", "old password"))
        .headers.get("location")!,
      /^\/auth\/login/,
    );
  } finally {
    close();
  }
});

Deno.test("change password: guests are sent to log in", async () => {
  const { app, close } = await testApp();
  try {
    const guest = new Client(app);
    const response = await guest.get("/profile/password");
    assert.equal(response.status, 302);
    assert.equal(
      (await guest.post("/profile/password", { password: "new password" }))
        .status,
      302,
    );
  } finally {
    close();
  }
});
