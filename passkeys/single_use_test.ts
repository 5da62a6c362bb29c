// A challenge serves one answer even when the handler throws (session()
// then saves nothing): through the module's documented example, whose
// verify route lets the refusal propagate. Also: the "already holds a
// passkey" check reads the credential id from the authenticator data,
// not the id the client reports; and base64url with `=` padding (as
// @simplewebauthn/server's own vectors have it) is accepted. Portable:
// runs on Node and Bun too.
import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import {
  createPasskeys,
  type Passkey,
  PASSKEY_CHALLENGE_KEY,
  type PasskeysOptions,
} from "@fetchkit/toolkit/passkeys";
import { SoftAuthenticator } from "./_test_authenticator.ts";

const ORIGIN = "http://localhost:8000";

/**
 * The module docs' example, as written (the verify route lets a refusal
 * propagate), plus the registration routes it leaves out.
 */
function documentedExample(options: Partial<PasskeysOptions> = {}) {
  const Sessions = createContextKey<Session>();
  const passkeys = createPasskeys({
    rpId: "localhost",
    rpName: "Example",
    origins: [ORIGIN],
    session: Sessions,
    ...options,
  });
  const stored = new Map<string, Passkey>();
  const router = createRouter({
    middleware: [
      session(
        Sessions,
        createMemorySessionStorage({
          cookie: { secrets: ["a-secret-of-at-least-32-characters!"] },
        }),
      ),
    ],
  });
  router.post(
    "/passkeys/options",
    (context) => Response.json(passkeys.authenticationOptions(context)),
  );
  router.post("/passkeys/verify", async (context) => {
    const { passkey, userId } = await passkeys.verifyAuthentication(
      context,
      await context.request.json(),
      (id) => stored.get(id),
    );
    stored.set(passkey.id, passkey); // the new counter and backup state
    return Response.json({ userId });
  });
  router.post("/register/options", async (context) =>
    Response.json(
      await passkeys.registrationOptions(context, {
        id: "7",
        name: "ada@example.com",
        credentials: [...stored.values()],
      }),
    ));
  router.post("/register", async (context) => {
    const passkey = await passkeys.verifyRegistration(
      context,
      await context.request.json(),
    );
    stored.set(passkey.id, passkey);
    return Response.json(passkey);
  });
  // Test only: a challenge of the peer's vectors in this session.
  router.post("/seed", async (context) => {
    context.get(Sessions)!.set(
      PASSKEY_CHALLENGE_KEY,
      await context.request.json(),
    );
    return new Response(null, { status: 204 });
  });
  let cookie = "";
  async function post(path: string, body?: unknown) {
    const response = await router.fetch(
      new Request(`http://localhost${path}`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
    const set = response.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    const text = await response.text();
    return {
      status: response.status,
      // deno-lint-ignore no-explicit-any
      body: (text.startsWith("{") ? JSON.parse(text) : text) as any,
    };
  }
  return { post, stored };
}

/** Flips a byte of the signature: a refused answer to the same challenge. */
function spoiled<T extends { response: { signature: string } }>(answer: T): T {
  const signature = answer.response.signature;
  const flipped = signature[10] === "A" ? "B" : "A";
  return {
    ...answer,
    response: {
      ...answer.response,
      signature: signature.slice(0, 10) + flipped + signature.slice(11),
    },
  };
}

Deno.test("passkeys: a refused answer that the handler lets throw still uses up the challenge (the documented example)", async () => {
  const site = documentedExample();
  const key = new SoftAuthenticator();
  const options = await site.post("/register/options");
  assert.equal(
    (await site.post("/register", await key.create(options.body, ORIGIN)))
      .status,
    200,
  );

  const challenge = await site.post("/passkeys/options");
  const good = await key.get(challenge.body, ORIGIN);
  const refused = await site.post("/passkeys/verify", spoiled(good));
  assert.equal(refused.status, 400, refused.body);
  // The valid answer to the same challenge, after the refusal: refused.
  const replay = await site.post("/passkeys/verify", good);
  assert.equal(replay.status, 400, JSON.stringify(replay.body));
  assert.match(String(replay.body), /used already|no authentication challenge/);
  // A fresh challenge signs in.
  const next = await site.post("/passkeys/options");
  const fresh = await site.post(
    "/passkeys/verify",
    await key.get(next.body, ORIGIN),
  );
  assert.equal(fresh.status, 200, fresh.body);
});

Deno.test("passkeys: a refused registration that throws still uses up its challenge", async () => {
  const site = documentedExample();
  const key = new SoftAuthenticator();
  const options = await site.post("/register/options");
  const good = await key.create(options.body, ORIGIN);
  const bad = {
    ...good,
    response: {
      ...good.response,
      clientDataJSON: btoa(JSON.stringify({
        type: "webauthn.create",
        challenge: options.body.challenge,
        origin: "https://evil.example",
      })).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, ""),
    },
  };
  assert.equal((await site.post("/register", bad)).status, 400);
  const replay = await site.post("/register", good);
  assert.equal(replay.status, 400, JSON.stringify(replay.body));
  assert.equal(site.stored.size, 0);
});

Deno.test("passkeys: the already-registered check reads the credential id from the authenticator data, not the id the client reports", async () => {
  const site = documentedExample();
  const key = new SoftAuthenticator();
  const first = await site.post("/register/options");
  assert.equal(
    (await site.post("/register", await key.create(first.body, ORIGIN)))
      .status,
    200,
  );
  const again = await site.post("/register/options");
  assert.equal(again.body.excludeCredentials.length, 1);
  // The same credential attested again, reported under another id.
  const answer = await key.create(again.body, ORIGIN, {
    again: 0,
    reportId: "c29tZS1vdGhlci1pZA",
  });
  const response = await site.post("/register", answer);
  assert.equal(response.status, 400, JSON.stringify(response.body));
  assert.match(String(response.body), /already holds a passkey/);
  assert.equal(site.stored.size, 1);
});

// @simplewebauthn/server's own assertion vector
// (packages/server/src/authentication/verifyAuthenticationResponse.test.ts):
// authenticatorData, clientDataJSON and signature carry `=` padding.
const PEER_ASSERTION = {
  id:
    "KEbWNCc7NgaYnUyrNeFGX9_3Y-8oJ3KwzjnaiD1d1LVTxR7v3CaKfCz2Vy_g_MHSh7yJ8yL0Pxg6jo_o0hYiew",
  rawId:
    "KEbWNCc7NgaYnUyrNeFGX9_3Y-8oJ3KwzjnaiD1d1LVTxR7v3CaKfCz2Vy_g_MHSh7yJ8yL0Pxg6jo_o0hYiew",
  response: {
    authenticatorData: "PdxHEOnAiLIp26idVjIguzn3Ipr_RlsKZWsa-5qK-KABAAAAkA==",
    clientDataJSON:
      "eyJjaGFsbGVuZ2UiOiJkRzkwWVd4c2VWVnVhWEYxWlZaaGJIVmxSWFpsY25sVWFXMWwiLCJj" +
      "bGllbnRFeHRlbnNpb25zIjp7fSwiaGFzaEFsZ29yaXRobSI6IlNIQS0yNTYiLCJvcmlnaW4iOiJodHRwczovL2Rldi5k" +
      "b250bmVlZGEucHciLCJ0eXBlIjoid2ViYXV0aG4uZ2V0In0=",
    signature:
      "MEUCIQDYXBOpCWSWq2Ll4558GJKD2RoWg958lvJSB_GdeokxogIgWuEVQ7ee6AswQY0OsuQ6y8Ks6" +
      "jhd45bDx92wjXKs900=",
  },
  clientExtensionResults: {},
  type: "public-key",
};

Deno.test("passkeys: base64url with = padding is accepted (@simplewebauthn/server's own padded vector)", async () => {
  const site = documentedExample({
    rpId: "dev.dontneeda.pw",
    origins: ["https://dev.dontneeda.pw"],
    // The vector's authenticator did not verify the user.
    userVerification: "preferred",
  });
  site.stored.set(PEER_ASSERTION.id, {
    id: PEER_ASSERTION.id,
    userId: "u1",
    publicKey:
      "pQECAyYgASFYIIheFp-u6GvFT2LNGovf3ZrT0iFVBsA_76rRysxRG9A1Ilgg8WGeA6hPmnab0HAViUYVRkwTNcN77QBf_RR0dv3lIvQ",
    counter: 143,
    backupEligible: false,
    backedUp: false,
  });
  await site.post("/seed", {
    kind: "authentication",
    // base64url("totallyUniqueValueEveryTime"), the vector's challenge
    challenge: "dG90YWxseVVuaXF1ZVZhbHVlRXZlcnlUaW1l",
    expires: Date.now() + 60_000,
    userId: "u1",
  });
  const response = await site.post("/passkeys/verify", PEER_ASSERTION);
  assert.equal(response.status, 200, JSON.stringify(response.body));
  assert.deepEqual(response.body, { userId: "u1" });
  assert.equal(site.stored.get(PEER_ASSERTION.id)!.counter, 144);
});

Deno.test("passkeys: padded id, rawId and user handle sign in; padding in the wrong place is refused", async () => {
  const site = documentedExample();
  const key = new SoftAuthenticator();
  const options = await site.post("/register/options");
  await site.post("/register", await key.create(options.body, ORIGIN));
  const pad = (text: string) => text + "=".repeat((4 - text.length % 4) % 4);

  const challenge = await site.post("/passkeys/options");
  const answer = await key.get(challenge.body, ORIGIN);
  assert.notEqual(pad(answer.id), answer.id, "the id has padding to add");
  const padded = {
    ...answer,
    id: pad(answer.id),
    rawId: pad(answer.rawId),
    response: {
      ...answer.response,
      userHandle: pad(answer.response.userHandle!),
      authenticatorData: pad(answer.response.authenticatorData),
      signature: pad(answer.response.signature),
      clientDataJSON: pad(answer.response.clientDataJSON),
    },
  };
  const signedIn = await site.post("/passkeys/verify", padded);
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
  assert.deepEqual(signedIn.body, { userId: "7" });

  for (const id of [answer.id + "===", "=" + answer.id, answer.id + "=x"]) {
    const next = await site.post("/passkeys/options");
    const again = await key.get(next.body, ORIGIN);
    const refused = await site.post("/passkeys/verify", {
      ...again,
      id,
      rawId: id,
    });
    assert.equal(refused.status, 400, id);
    assert.match(String(refused.body), /not base64url/, id);
  }
});

Deno.test("passkeys: the memory record of used challenges forgets them when they expire, and refuses (503) past 100,000 live ones", async () => {
  const { createMemoryUsedChallenges, MAX_USED_CHALLENGES } = await import(
    "./_used_challenges.ts"
  );
  const record = createMemoryUsedChallenges();
  const soon = Date.now() + 50;
  assert.equal(record.use("a", soon), true);
  assert.equal(record.use("a", soon), false);
  await new Promise((resolve) => setTimeout(resolve, 80));
  // Expired: forgotten (the session no longer holds it either).
  assert.equal(record.use("b", Date.now() + 60_000), true);
  const later = Date.now() + 60_000;
  for (let i = 1; i < MAX_USED_CHALLENGES; i++) record.use(`c${i}`, later);
  assert.throws(
    () => record.use("one-more", later),
    (error: { status?: number }) => error.status === 503,
  );
  assert.equal(record.use("b", later), false, "still refuses a used one");
});
