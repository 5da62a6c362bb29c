// "Make new backup codes" on the security page: behind re-authentication
// and CSRF like the app's other forms, it replaces every backup code,
// shows the 10 new ones once, and the old ones stop working.
import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import { Client, read, testApp } from "./_test_app.ts";
import { confirm } from "./_test_confirm.ts";
import { codesOf, enrolled } from "./_test_two_factor.ts";
import { WRONG_CODE } from "./controllers/two_factor.ts";

const EMAIL = "ada@example.com";
const PASSWORD = "correct horse";
const NEW_CODES = "/profile/two-factor/backup-codes";

/** A sign-in on a new client with the password, then `code`: its answer. */
async function signInWith(app: Client["app"], code: string) {
  const client = new Client(app);
  const answer = await client.login(EMAIL, PASSWORD);
  assert.equal(answer.headers.get("location"), "/auth/two-factor");
  return await read(await client.post("/auth/two-factor", { code }));
}

Deno.test("new backup codes: the security page's button replaces every code, shows the 10 new ones once, and the old ones stop working", async () => {
  const { app, close } = await testApp();
  try {
    const { client, codes: old } = await enrolled(app, EMAIL, PASSWORD);
    // One old code used: 9 left.
    assert.equal((await signInWith(app, old[0])).status, 303);

    const security = await read(await client.get("/profile/security"));
    assert.match(security.body, /id="backup-codes-left">9</);
    assert.match(
      security.body,
      new RegExp(`<form method="post" action="${NEW_CODES}"`),
    );
    assert.match(security.body, /Make new backup codes<\/button>/);

    const made = await read(await client.post(NEW_CODES));
    assert.equal(made.status, 200);
    const fresh = codesOf(made.body);
    assert.equal(fresh.length, 10);
    assert.equal(new Set(fresh).size, 10);
    for (const code of fresh) assert.ok(!old.includes(code));
    assert.match(made.body, /the old ones no longer work/i);
    assert.match(made.body, /only time they are shown/);

    // Shown once: the security page counts them, and lists none.
    const after = await read(await client.get("/profile/security"));
    assert.match(after.body, /id="backup-codes-left">10</);
    assert.doesNotMatch(after.body, /id="backup-codes"/);
    assert.doesNotMatch(after.body, new RegExp(fresh[0]));

    // The old codes (used or not) are refused; the new ones sign in, once.
    const refused = await signInWith(app, old[1]);
    assert.equal(refused.status, 422);
    assert.match(refused.body, new RegExp(WRONG_CODE.slice(0, 24)));
    assert.equal((await signInWith(app, old[0])).status, 422);
    assert.equal((await signInWith(app, fresh[0])).status, 303);
    assert.equal((await signInWith(app, fresh[0])).status, 422);
  } finally {
    await close();
  }
});

Deno.test("new backup codes: without a fresh re-authentication the form goes to the confirm page and nothing changes", async () => {
  const clock = FakeTimers.withGlobal(globalThis).install({
    now: Date.now(),
    toFake: ["Date"],
  });
  const { app, close } = await testApp();
  try {
    const { client, codes } = await enrolled(app, EMAIL, PASSWORD);
    clock.tick(10 * 60_000 + 1);
    const answer = await client.post(NEW_CODES);
    assert.equal(answer.status, 303);
    assert.equal(
      answer.headers.get("location"),
      "/auth/confirm?returnTo=%2Fprofile%2Fsecurity",
    );
    await answer.body?.cancel();
    // The old codes still work.
    assert.equal((await signInWith(app, codes[0])).status, 303);
    // Confirmed again, the button works.
    await confirm(client, PASSWORD, "/profile/security");
    const made = await read(await client.post(NEW_CODES));
    assert.equal(made.status, 200);
    assert.equal(codesOf(made.body).length, 10);
  } finally {
    clock.uninstall();
    await close();
  }
});

Deno.test("new backup codes: a cross-site POST is refused with 403, and codes stay", async () => {
  const { app, close } = await testApp();
  try {
    const { client, codes } = await enrolled(app, EMAIL, PASSWORD);
    const answer = await read(
      await client.request(NEW_CODES, {
        method: "POST",
        headers: {
          "sec-fetch-site": "cross-site",
          origin: "https://evil.example",
        },
        form: {},
      }),
    );
    assert.equal(answer.status, 403);
    assert.equal((await signInWith(app, codes[0])).status, 303);
  } finally {
    await close();
  }
});

Deno.test("new backup codes: with two-factor off there is no button, and the form sends to the set-up page", async () => {
  const { app, close } = await testApp();
  try {
    const client = new Client(app);
    await client.register(EMAIL, PASSWORD);
    await confirm(client, PASSWORD, "/profile/security");
    const security = await read(await client.get("/profile/security"));
    assert.doesNotMatch(security.body, /Make new backup codes/);
    const answer = await client.post(NEW_CODES);
    assert.equal(answer.status, 303);
    assert.equal(answer.headers.get("location"), "/profile/two-factor");
    await answer.body?.cancel();
  } finally {
    await close();
  }
});
