// The app's passkey sign-in lets a refusal propagate (a 400 thrown from
// the handler, so session() saves nothing): the challenge must be used up
// all the same, and a valid answer to it sent afterwards refused. And the
// Deno KV record of used challenges, for several instances of the app.
import assert from "node:assert/strict";
import { SoftAuthenticator } from "../../passkeys/_test_authenticator.ts";
import { Client, testApp } from "./_test_app.ts";
import { confirm } from "./_test_confirm.ts";
import { createUsedChallengeStore } from "./passkeys.ts";

const ORIGIN = "http://localhost:8000";

async function postJson(client: Client, path: string, body: unknown) {
  const response = await client.request(path, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json",
    },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: response.headers.get("content-type")?.includes("json")
      ? JSON.parse(text)
      : text,
  };
}

Deno.test("example passkeys: a refused answer uses up its challenge; the valid answer after it is refused", async () => {
  const { app, close } = await testApp();
  try {
    const ada = new Client(app);
    await ada.register("ada@example.com");
    // Adding a passkey needs a fresh confirmation of the password.
    await confirm(ada, "correct horse", "/profile");
    const key = new SoftAuthenticator();
    const options = await postJson(ada, "/passkeys/register/options", {});
    const added = await postJson(ada, "/passkeys/register", {
      credential: await key.create(options.json, ORIGIN),
    });
    assert.equal(added.status, 200, JSON.stringify(added.json));

    const guest = new Client(app);
    const challenge = await postJson(guest, "/passkeys/login/options", {});
    const good = await key.get(challenge.json, ORIGIN);
    const signature = good.response.signature;
    const spoiled = {
      ...good,
      response: {
        ...good.response,
        signature: signature.slice(0, 10) +
          (signature[10] === "A" ? "B" : "A") + signature.slice(11),
      },
    };
    const refused = await postJson(guest, "/passkeys/login", spoiled);
    assert.equal(refused.status, 400, JSON.stringify(refused.json));
    const replay = await postJson(guest, "/passkeys/login", good);
    assert.equal(replay.status, 400, JSON.stringify(replay.json));
    assert.equal((await guest.get("/dashboard")).status, 302, "not signed in");
  } finally {
    close();
  }
});

Deno.test("example passkeys: the KV record of used challenges takes each once, and forgets it when it expires", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const one = createUsedChallengeStore(kv);
    const two = createUsedChallengeStore(kv);
    const expires = Date.now() + 60_000;
    assert.equal(await one.use("challenge-a", expires), true);
    assert.equal(await two.use("challenge-a", expires), false);
    assert.equal(await one.use("challenge-a", expires), false);
    assert.equal(await two.use("challenge-b", expires), true);
    const entry = await kv.get(["passkey_challenges", "challenge-a"]);
    assert.ok(entry.value !== null);
  } finally {
    kv.close();
  }
});
