// Two-factor authentication in the app, request by request: enrolment
// behind re-authentication, the sign-in's second step, a replayed code,
// backup codes used once, the lockout, the pending sign-in's expiry, and
// turning it off (which signs out every other device).
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { totpCode } from "@fetchkit/toolkit/totp";
import { Client, read, testApp } from "./_test_app.ts";
import { confirm } from "./_test_confirm.ts";
import { enrolled } from "./_test_two_factor.ts";
import {
  MALFORMED_CODE,
  PENDING_EXPIRED,
  REUSED_CODE,
  WRONG_CODE,
} from "./controllers/two_factor.ts";
import { LOGIN_LIMIT } from "./login_limits.ts";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse";
const STEP = 30_000;

// Only Date is faked: Deno KV keeps its real timers. Starts on a step's
// first second, so "the next step" is always a tick of 30 s away.
function fakeDate() {
  return FakeTimers.withGlobal(globalThis).install({
    now: Date.UTC(2026, 0, 1),
    toFake: ["Date"],
  });
}

/** The HTML entities the html tag writes, undone. */
function unescape(text: string): string {
  return text.replaceAll("&amp;", "&").replaceAll("&#x3D;", "=")
    .replaceAll("&#61;", "=").replaceAll("&#x2F;", "/");
}

/** Logs in with the password on a new client: at the second step. */
async function passwordStep(app: Client["app"], address?: string) {
  const client = new Client(app, address);
  const answer = await client.login(EMAIL, PASSWORD, "?returnTo=%2Fprofile");
  assert.equal(answer.status, 303);
  assert.equal(answer.headers.get("location"), "/auth/two-factor");
  return client;
}

Deno.test("two-factor enrolment: re-authentication first, then the QR code, the link, the secret in fours; a code turns it on and shows 10 backup codes once", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const client = new Client(app);
    await client.register(EMAIL, PASSWORD);
    const guarded = await client.get("/profile/two-factor");
    assert.equal(guarded.status, 303);
    assert.equal(
      guarded.headers.get("location"),
      "/auth/confirm?returnTo=%2Fprofile%2Ftwo-factor",
    );
    const confirmPage = await read(
      await client.get("/auth/confirm?returnTo=%2Fprofile%2Ftwo-factor"),
    );
    assert.equal(confirmPage.status, 200);
    assert.match(confirmPage.body, /Confirm it is you/);
    assert.match(confirmPage.body, /type="password"/);
    const wrong = await read(
      await client.post("/auth/confirm?returnTo=%2Fprofile%2Ftwo-factor", {
        password: "not it",
      }),
    );
    assert.equal(wrong.status, 422);
    assert.match(wrong.body, /That password is not right/);
    await confirm(client, PASSWORD, "/profile/two-factor");

    const setup = await read(await client.get("/profile/two-factor"));
    assert.equal(setup.status, 200);
    assert.match(setup.body, /<svg [^>]*role="img"/, "the QR code, inline");
    const href = unescape(setup.body.match(/href="(otpauth:[^"]+)"/)![1]);
    const uri = new URL(href);
    assert.equal(uri.protocol, "otpauth:");
    assert.equal(uri.searchParams.get("issuer"), "fetchkit auth example");
    const secret = uri.searchParams.get("secret")!;
    assert.match(secret, /^[A-Z2-7]{32}$/);
    const grouped = setup.body.match(/id="totp-secret">([A-Z2-7 ]+)</)![1];
    assert.equal(grouped, secret.match(/.{4}/g)!.join(" "));
    assert.match(setup.body, /passkey is already two factors/);
    // The same secret on a reload (the app already has it).
    assert.match(
      (await read(await client.get("/profile/two-factor"))).body,
      new RegExp(secret.slice(0, 4)),
    );

    const bad = await read(
      await client.post("/profile/two-factor", { code: "000000" }),
    );
    assert.equal(bad.status, 422);
    assert.match(bad.body, /That code is not right/);
    const on = await read(
      await client.post("/profile/two-factor", {
        code: await totpCode(secret),
      }),
    );
    assert.equal(on.status, 200);
    const list = on.body.match(/<ol id="backup-codes">([\s\S]*?)<\/ol>/)![1];
    const codes = [...list.matchAll(/<li>([a-z2-7]{4}-[a-z2-7]{4})<\/li>/g)];
    assert.equal(codes.length, 10);
    // Shown once: the page now manages it, without the codes.
    const after = await read(await client.get("/profile/two-factor"));
    assert.doesNotMatch(after.body, /backup-codes"/);
    assert.match(after.body, /Backup codes left: <strong>10<\/strong>/);
    const securityPage = await read(await client.get("/profile/security"));
    assert.match(securityPage.body, /id="backup-codes-left">10</);

    // Re-authentication lasts 10 minutes.
    clock.tick(10 * 60_000 + 1);
    assert.equal((await client.get("/profile/two-factor")).status, 303);
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("two-factor sign-in: the password alone does not sign in; a current code does, once; a replayed code is refused", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const { secret } = await enrolled(app, EMAIL, PASSWORD);
    const client = await passwordStep(app);
    assert.equal((await client.get("/dashboard")).status, 302, "not yet");
    const form = await read(await client.get("/auth/two-factor"));
    assert.equal(form.status, 200);
    assert.match(form.body, /name="code"/);
    assert.match(form.body, /autocomplete="one-time-code"/);
    assert.match(form.body, /passkey skips this step/);

    // The enrolment's code is used up: the same step's code is refused.
    const replay = await read(
      await client.post("/auth/two-factor", { code: await totpCode(secret) }),
    );
    assert.equal(replay.status, 422);
    assert.match(replay.body, new RegExp(REUSED_CODE.slice(0, 30)));

    clock.tick(STEP);
    const code = await totpCode(secret);
    const signedIn = await client.post("/auth/two-factor", {
      code: code.slice(0, 3) + " " + code.slice(3),
    });
    assert.equal(signedIn.status, 303);
    assert.equal(signedIn.headers.get("location"), "/profile");
    assert.equal((await client.get("/dashboard")).status, 200);

    // The same code, again within its 30 s, on another sign-in: refused.
    const other = await passwordStep(app);
    const again = await read(await other.post("/auth/two-factor", { code }));
    assert.equal(again.status, 422);
    assert.match(again.body, /already used/);
    assert.equal((await other.get("/dashboard")).status, 302);
    const garbage = await read(
      await other.post("/auth/two-factor", { code: "12ab!" }),
    );
    assert.equal(garbage.status, 422);
    assert.match(garbage.body, new RegExp(MALFORMED_CODE.slice(0, 20)));
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("two-factor sign-in: each backup code works once, in any case and without its hyphen", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const { client: owner, codes } = await enrolled(app, EMAIL, PASSWORD);
    const first = await passwordStep(app);
    const used = await first.post("/auth/two-factor", {
      code: codes[3].toUpperCase().replace("-", ""),
    });
    assert.equal(used.status, 303);
    assert.match(
      (await read(await first.get("/profile"))).body,
      /backup code; 9 left/,
    );
    const second = await passwordStep(app);
    const twice = await read(
      await second.post("/auth/two-factor", { code: codes[3] }),
    );
    assert.equal(twice.status, 422);
    assert.match(twice.body, new RegExp(WRONG_CODE.slice(0, 20)));
    assert.equal((await second.get("/dashboard")).status, 302);
    assert.match(
      (await read(await owner.get("/profile/security"))).body,
      /id="backup-codes-left">9</,
    );
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("two-factor lockout: 5 wrong codes per account in 15 minutes, then 429 with Retry-After, from any address", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const { secret } = await enrolled(app, EMAIL, PASSWORD);
    const client = await passwordStep(app);
    for (let i = 0; i < LOGIN_LIMIT; i++) {
      const wrong = await client.post("/auth/two-factor", { code: "000000" });
      assert.equal(wrong.status, 422, `attempt ${i + 1}`);
    }
    clock.tick(STEP);
    const locked = await read(
      await client.post("/auth/two-factor", { code: await totpCode(secret) }),
    );
    assert.equal(locked.status, 429);
    assert.match(
      locked.body,
      /Too many code attempts\. Try again in 15 minutes/,
    );
    // Another address, the right password, the right code: still locked.
    const elsewhere = await passwordStep(app);
    const refused = await elsewhere.post("/auth/two-factor", {
      code: await totpCode(secret),
    });
    assert.equal(refused.status, 429);
    assert.equal(refused.headers.get("retry-after"), String(15 * 60 - 30));
    clock.tick(15 * 60_000);
    const later = await passwordStep(app);
    const ok = await later.post("/auth/two-factor", {
      code: await totpCode(secret),
    });
    assert.equal(ok.status, 303);
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("two-factor sign-in: the pending sign-in ends after 5 minutes; the step needs one", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const { secret } = await enrolled(app, EMAIL, PASSWORD);
    const nobody = new Client(app);
    const none = await nobody.get("/auth/two-factor");
    assert.equal(none.status, 303);
    assert.equal(none.headers.get("location"), "/auth/login");

    const client = await passwordStep(app);
    clock.tick(5 * 60_000 + 1);
    const late = await client.post("/auth/two-factor", {
      code: await totpCode(secret),
    });
    assert.equal(late.status, 303);
    assert.equal(late.headers.get("location"), "/auth/login");
    const login = await read(await client.get("/auth/login"));
    assert.match(login.body, new RegExp(PENDING_EXPIRED.slice(0, 30)));
    assert.equal((await client.get("/dashboard")).status, 302);
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("turning two-factor off: re-authentication and a code; every other device is signed out, this one stays", async () => {
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    const { client, secret, codes } = await enrolled(app, EMAIL, PASSWORD);
    clock.tick(STEP);
    const laptop = await passwordStep(app);
    assert.equal(
      (await laptop.post("/auth/two-factor", { code: await totpCode(secret) }))
        .status,
      303,
    );
    assert.equal((await laptop.get("/dashboard")).status, 200);
    const devicesBefore = await read(await client.get("/profile/security"));
    assert.equal(devicesBefore.body.match(/class="device-item/g)?.length, 2);

    // A wrong code: refused, still on.
    const wrong = await read(
      await client.request("/profile/two-factor", {
        method: "POST",
        form: { _method: "DELETE", code: "000000" },
      }),
    );
    assert.equal(wrong.status, 422);
    assert.match(wrong.body, /That code is not right/);
    // Without a fresh confirmation: to the confirm page first.
    clock.tick(10 * 60_000 + 1);
    const stale = await client.request("/profile/two-factor", {
      method: "POST",
      form: { _method: "DELETE", code: codes[0] },
    });
    assert.equal(stale.status, 303);
    assert.equal(
      stale.headers.get("location"),
      "/auth/confirm?returnTo=%2Fprofile%2Ftwo-factor",
    );
    await confirm(client, PASSWORD, "/profile/two-factor");
    const off = await client.request("/profile/two-factor", {
      method: "POST",
      form: { _method: "DELETE", code: codes[0] },
    });
    assert.equal(off.status, 303);
    assert.equal(off.headers.get("location"), "/profile/security");
    const page = await read(await client.get("/profile/security"));
    assert.match(
      page.body,
      /Two-factor authentication is off\. Every other device was signed out\./,
    );
    assert.match(page.body, /class="state-off"/);
    // The laptop's session is gone from the storage's index at once.
    assert.equal(page.body.match(/class="device-item/g)?.length, 1);
    assert.equal((await laptop.get("/dashboard")).status, 302, "signed out");
    // And the password alone signs in again.
    const next = await new Client(app).login(EMAIL, PASSWORD);
    assert.equal(next.headers.get("location"), "/dashboard");
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("re-authentication: adding a passkey needs it (401 JSON with the confirm page), a guest goes to the login page", async () => {
  const { app, close } = await testApp();
  try {
    const client = new Client(app);
    await client.register(EMAIL, PASSWORD);
    const options = await client.request("/passkeys/register/options", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
      },
      body: "{}",
    });
    assert.equal(options.status, 401);
    assert.deepEqual(await options.json(), {
      error: "Confirm your password or passkey to continue",
      confirm: "/auth/confirm?returnTo=%2Fprofile",
    });
    await confirm(client, PASSWORD, "/profile");
    const allowed = await client.request("/passkeys/register/options", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
      },
      body: "{}",
    });
    assert.equal(allowed.status, 200);
    const guest = await new Client(app).get("/auth/confirm");
    assert.equal(guest.status, 302);
    assert.match(guest.headers.get("location")!, /^\/auth\/login/);
  } finally {
    close();
  }
});

Deno.test("re-authentication: 5 wrong passwords on the confirm page lock it for 15 minutes (429, Retry-After)", async () => {
  const { app, close } = await testApp();
  try {
    const client = new Client(app);
    await client.register(EMAIL, PASSWORD);
    for (let i = 0; i < LOGIN_LIMIT; i++) {
      const wrong = await client.post("/auth/confirm", { password: "nope" });
      assert.equal(wrong.status, 422, `attempt ${i + 1}`);
    }
    const locked = await read(
      await client.post("/auth/confirm", { password: PASSWORD }),
    );
    assert.equal(locked.status, 429);
    assert.match(
      locked.body,
      /Too many password attempts\. Try again in 15 minutes/,
    );
  } finally {
    close();
  }
});

Deno.test("passkeys: a passkey sign-in skips the second step; a passkey confirms too", async () => {
  const { SoftAuthenticator } = await import(
    "../../passkeys/_test_authenticator.ts"
  );
  const ORIGIN = "http://localhost:8000";
  const json = async (client: Client, path: string, body: unknown) => {
    const response = await client.request(path, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: await response.json() };
  };
  const clock = fakeDate();
  const { app, close } = await testApp();
  try {
    // Enrolled a moment ago: the confirmation still holds for a passkey.
    const { client } = await enrolled(app, EMAIL, PASSWORD);
    const key = new SoftAuthenticator();
    const options = await json(client, "/passkeys/register/options", {});
    assert.equal(options.status, 200);
    const added = await json(client, "/passkeys/register", {
      credential: await key.create(options.json, ORIGIN),
    });
    assert.equal(added.status, 200, JSON.stringify(added.json));

    const phone = new Client(app);
    const loginOptions = await json(phone, "/passkeys/login/options", {});
    const signedIn = await json(
      phone,
      "/passkeys/login",
      await key.get(loginOptions.json, ORIGIN),
    );
    assert.deepEqual(signedIn.json, { location: "/dashboard" });
    assert.equal((await phone.get("/dashboard")).status, 200, "no code asked");

    // The confirm page offers the passkey, and it confirms.
    const page = await read(
      await phone.get("/auth/confirm?returnTo=%2Fprofile%2Ftwo-factor"),
    );
    assert.match(page.body, /Confirm with a passkey/);
    assert.equal((await phone.get("/profile/two-factor")).status, 303);
    const confirmOptions = await json(
      phone,
      "/auth/confirm/passkey/options",
      {},
    );
    assert.equal(confirmOptions.status, 200);
    assert.equal(confirmOptions.json.allowCredentials.length, 1);
    const confirmed = await json(
      phone,
      "/auth/confirm/passkey?returnTo=%2Fprofile%2Ftwo-factor",
      await key.get(confirmOptions.json, ORIGIN),
    );
    assert.deepEqual(confirmed.json, { location: "/profile/two-factor" });
    assert.equal((await phone.get("/profile/two-factor")).status, 200);

    // Another account's passkey does not confirm this one.
    const mallory = new Client(app);
    await mallory.register("mallory@example.com", PASSWORD);
    const theirs = await json(mallory, "/auth/confirm/passkey/options", {});
    const refused = await json(
      mallory,
      "/auth/confirm/passkey",
      await key.get({ ...theirs.json, allowCredentials: undefined }, ORIGIN),
    );
    assert.equal(refused.status, 400);
    assert.equal((await mallory.get("/profile/two-factor")).status, 303);
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("deleting an account removes its two-factor secret and backup codes", async () => {
  const { createTwoFactorStore } = await import("./two_factor.ts");
  const clock = fakeDate();
  const { app, kv, close } = await testApp();
  try {
    const { client } = await enrolled(app, EMAIL, PASSWORD);
    const store = createTwoFactorStore(kv);
    const id = (await (await import("./users.ts")).createUserStore(kv)
      .findByEmail(EMAIL))!.id;
    assert.ok(await store.get(id));
    const deleted = await client.post("/profile/delete", { email: EMAIL });
    assert.equal(deleted.status, 303);
    assert.equal(await store.get(id), null);
  } finally {
    close();
    clock.uninstall();
  }
});

Deno.test("two-factor store: one code checked twice at once is accepted once (compare-and-set), a backup code too", async () => {
  const { createTwoFactorStore } = await import("./two_factor.ts");
  const { createBackupCodes, createTotpSecret } = await import(
    "@fetchkit/toolkit/totp"
  );
  const kv = await Deno.openKv(":memory:");
  try {
    const store = createTwoFactorStore(kv);
    const secret = createTotpSecret();
    const [backup] = createBackupCodes(1);
    await store.enable(7, { secret, lastStep: 0, backupCodes: [backup] });
    const code = await totpCode(secret);
    const totps = await Promise.all([
      store.check(7, code),
      store.check(7, code),
    ]);
    assert.deepEqual(totps.map((check) => check.ok).sort(), [false, true]);
    const backups = await Promise.all([
      store.check(7, backup),
      store.check(7, backup),
    ]);
    assert.deepEqual(backups.map((check) => check.ok).sort(), [false, true]);
  } finally {
    kv.close();
  }
});
