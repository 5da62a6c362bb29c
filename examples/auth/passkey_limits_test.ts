// The passkey option requests' limit per client address, over HTTP in
// process: they store a challenge in a session (a guest's is new each time).
import assert from "node:assert/strict";
import { Client, testApp } from "./_test_app.ts";
import { PASSKEY_OPTIONS_LIMIT } from "./passkey_limits.ts";
import { confirm } from "./_test_confirm.ts";

function options(client: Client, path = "/passkeys/login/options") {
  return client.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: "{}",
  });
}

Deno.test("passkey options: limited per client address; a refused request writes no session", async () => {
  const { app, kv, close } = await testApp();
  try {
    const countSessions = async () => {
      let n = 0;
      for await (const _ of kv.list({ prefix: [] })) n++;
      return n;
    };
    for (let i = 0; i < PASSKEY_OPTIONS_LIMIT; i++) {
      // A new client each time: a new guest session each time, as a loop would.
      const response = await options(new Client(app, "10.77.0.1"));
      assert.equal(response.status, 200, `request ${i + 1}`);
      await response.body?.cancel();
    }
    const before = await countSessions();
    const refused = await options(new Client(app, "10.77.0.1"));
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get("retry-after")) >= 1);
    assert.equal(refused.headers.getSetCookie().length, 0);
    const { error } = await refused.json();
    assert.match(
      error,
      /Try again in \d+ seconds, or sign in with your password/,
    );
    assert.equal(
      await countSessions(),
      before,
      "a refused request stored something",
    );

    // Another address is not affected.
    assert.equal((await options(new Client(app, "10.77.0.2"))).status, 200);

    // Signed-in members' creation options count too.
    const member = new Client(app, "10.77.0.3");
    await member.register("ada@example.com");
    await confirm(member, "correct horse", "/profile");
    for (let i = 0; i < PASSKEY_OPTIONS_LIMIT; i++) {
      const response = await options(member, "/passkeys/register/options");
      assert.equal(response.status, 200, `register options ${i + 1}`);
      await response.body?.cancel();
    }
    assert.equal(
      (await options(member, "/passkeys/register/options")).status,
      429,
    );
  } finally {
    close();
  }
});
