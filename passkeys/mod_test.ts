// Passkey registration and sign-in through a real router and real
// sessions, with responses made by a software authenticator (ES256,
// attestation "none") and checked by @simplewebauthn/server. Portable:
// runs on Node and Bun too.
import assert from "node:assert/strict";
import {
  createContextKey,
  createRouter,
  type Router,
} from "@fetchkit/toolkit/fetch-router";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createMemorySessionStorage } from "@fetchkit/toolkit/session/memory-storage";
import {
  createPasskeys,
  type Passkey,
  type PasskeysOptions,
} from "@fetchkit/toolkit/passkeys";
import { SoftAuthenticator } from "./_test_authenticator.ts";

const ORIGIN = "http://localhost:8000";
const Sessions = createContextKey<Session>();

interface Site {
  router: Router;
  stored: Map<string, Passkey>;
  /** POSTs JSON with this browser's cookie; answers status and JSON/text. */
  // deno-lint-ignore no-explicit-any
  post(path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

function site(options: Partial<PasskeysOptions> = {}): Site {
  const passkeys = createPasskeys({
    rpId: "localhost",
    rpName: "Test",
    origins: [ORIGIN],
    session: Sessions,
    ...options,
  });
  const stored = new Map<string, Passkey>();
  const mine = (userId: string) =>
    [...stored.values()].filter((p) => p.userId === userId);
  const router = createRouter({
    middleware: [
      session(
        Sessions,
        createMemorySessionStorage({ cookie: { secrets: ["s".repeat(32)] } }),
      ),
    ],
  });
  router.post("/register/options/:user", async (context) =>
    Response.json(
      await passkeys.registrationOptions(context, {
        id: context.params.user,
        name: `${context.params.user}@example.com`,
        credentials: mine(context.params.user),
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
  router.post("/login/options", (context) => {
    const userId = context.url.searchParams.get("user") ?? undefined;
    return Response.json(
      passkeys.authenticationOptions(context, {
        userId,
        credentials: userId ? mine(userId) : undefined,
      }),
    );
  });
  router.post("/login", async (context) => {
    const result = await passkeys.verifyAuthentication(
      context,
      await context.request.json(),
      (id) => stored.get(id),
    );
    stored.set(result.passkey.id, result.passkey);
    return Response.json(result);
  });
  let cookie = "";
  return {
    router,
    stored,
    async post(path, body) {
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
        body: response.headers.get("content-type")?.includes("json")
          ? JSON.parse(text)
          : text,
      };
    },
  };
}

async function register(s: Site, key: SoftAuthenticator, user = "7") {
  const options = await s.post(`/register/options/${user}`);
  assert.equal(options.status, 200);
  return await s.post("/register", await key.create(options.body, ORIGIN));
}

async function signIn(s: Site, key: SoftAuthenticator, user?: string) {
  const options = await s.post(
    user ? `/login/options?user=${user}` : "/login/options",
  );
  assert.equal(options.status, 200);
  return await s.post("/login", await key.get(options.body, ORIGIN));
}

Deno.test("passkeys: register, then sign in with and without a username", async () => {
  const s = site();
  const key = new SoftAuthenticator();
  const registered = await register(s, key);
  assert.equal(registered.status, 200, registered.body);
  assert.equal(registered.body.userId, "7");
  assert.equal(registered.body.counter, 0);
  assert.equal(registered.body.backupEligible, false);
  assert.equal(registered.body.userVerified, true);
  assert.deepEqual(registered.body.transports, ["internal"]);

  // Username-less: no allowCredentials, the account from the credential.
  const options = await s.post("/login/options");
  assert.equal(options.body.allowCredentials, undefined);
  assert.equal(options.body.userVerification, "required");
  const anyone = await s.post("/login", await key.get(options.body, ORIGIN));
  assert.equal(anyone.status, 200, anyone.body);
  assert.equal(anyone.body.userId, "7");
  assert.equal(anyone.body.passkey.counter, 1);

  const named = await signIn(s, key, "7");
  assert.equal(named.status, 200, named.body);
  assert.equal(named.body.passkey.counter, 2);
  assert.equal(s.stored.get(named.body.passkey.id)!.counter, 2);
});

Deno.test("passkeys: registration options name the user's passkeys in excludeCredentials, and a second one on the same authenticator is refused", async () => {
  const s = site();
  const key = new SoftAuthenticator();
  const first = await register(s, key);
  const options = await s.post("/register/options/7");
  assert.deepEqual(
    options.body.excludeCredentials.map((c: { id: string }) => c.id),
    [first.body.id],
  );
  assert.equal(options.body.authenticatorSelection.residentKey, "required");
  // A client that ignores excludeCredentials and answers with the same
  // credential (here: the first registration, sent again).
  const again = await key.create(options.body, ORIGIN);
  again.id = again.rawId = first.body.id;
  const refused = await s.post("/register", again);
  assert.equal(refused.status, 400);
  assert.match(refused.body, /already holds a passkey for this account/);
});

Deno.test("passkeys: a replayed assertion is refused, with or without a new challenge", async () => {
  const s = site();
  const key = new SoftAuthenticator();
  await register(s, key);
  const options = await s.post("/login/options");
  const assertion = await key.get(options.body, ORIGIN);
  assert.equal((await s.post("/login", assertion)).status, 200);

  const replay = await s.post("/login", assertion);
  assert.equal(replay.status, 400);
  assert.match(replay.body, /no authentication challenge in this session/);

  await s.post("/login/options");
  const withNewChallenge = await s.post("/login", assertion);
  assert.equal(withNewChallenge.status, 400);
  assert.match(withNewChallenge.body, /challenge/i);
});

Deno.test("passkeys: a replayed registration response is refused", async () => {
  const s = site();
  const key = new SoftAuthenticator();
  const options = await s.post("/register/options/7");
  const response = await key.create(options.body, ORIGIN);
  assert.equal((await s.post("/register", response)).status, 200);
  const replay = await s.post("/register", response);
  assert.equal(replay.status, 400);
  assert.match(replay.body, /no registration challenge/);
});

Deno.test("passkeys: a sign counter that does not grow (a cloned authenticator) is refused", async () => {
  const s = site();
  const key = new SoftAuthenticator();
  const { body } = await register(s, key);
  assert.equal((await signIn(s, key)).body.passkey.counter, 1);
  key.credentials[0].counter = 0; // the clone is one use behind
  const clone = await signIn(s, key);
  assert.equal(clone.status, 400);
  assert.match(clone.body, /counter/);
  assert.equal(s.stored.get(body.id)!.counter, 1);
});

Deno.test("passkeys: authenticators without a counter (0 always) sign in again", async () => {
  const s = site();
  const key = new SoftAuthenticator({ counts: false, backupEligible: true });
  const registered = await register(s, key);
  assert.equal(registered.body.backupEligible, true);
  assert.equal((await signIn(s, key)).status, 200);
  const again = await signIn(s, key);
  assert.equal(again.status, 200, again.body);
  assert.equal(again.body.passkey.counter, 0);
});

Deno.test("passkeys: the backed-up flag is returned for storage; a changed backup eligibility is refused", async () => {
  const s = site();
  const key = new SoftAuthenticator({ backupEligible: true, counts: false });
  await register(s, key);
  key.options.backedUp = true;
  const backedUp = await signIn(s, key);
  assert.equal(backedUp.body.passkey.backedUp, true);

  key.options = { backupEligible: false, counts: false };
  const changed = await signIn(s, key);
  assert.equal(changed.status, 400);
  assert.match(changed.body, /backup eligibility flag changed/);
});

Deno.test("passkeys: a response without user verification is refused", async () => {
  const s = site();
  const unverified = new SoftAuthenticator({ userVerified: false });
  const registration = await register(s, unverified);
  assert.equal(registration.status, 400);
  assert.match(registration.body, /^Passkey registration: .*user .*verif/i);

  const key = new SoftAuthenticator();
  await register(s, key);
  key.options.userVerified = false;
  const signInRefused = await signIn(s, key);
  assert.equal(signInRefused.status, 400);
  assert.match(signInRefused.body, /^Passkey sign-in: .*user .*verif/i);
});

Deno.test("passkeys: userVerification 'preferred' accepts an unverified user and says so", async () => {
  const s = site({ userVerification: "preferred" });
  const key = new SoftAuthenticator({ userVerified: false });
  const registered = await register(s, key);
  assert.equal(registered.status, 200, registered.body);
  assert.equal(registered.body.userVerified, false);
  const signedIn = await signIn(s, key);
  assert.equal(signedIn.body.userVerified, false);
});

Deno.test("passkeys: with a username, only that account's passkeys answer", async () => {
  const s = site();
  const alice = new SoftAuthenticator();
  const bob = new SoftAuthenticator();
  await register(s, alice, "1");
  await register(s, bob, "2");
  const options = await s.post("/login/options?user=1");
  // Bob's authenticator answers the challenge meant for Alice's account.
  const stolen = await bob.get(
    { ...options.body, allowCredentials: undefined },
    ORIGIN,
  );
  const refused = await s.post("/login", stolen);
  assert.equal(refused.status, 400);
  assert.match(refused.body, /not one of the account's/);
});

Deno.test("passkeys: with a user id but no list, any passkey may answer and another account's is refused", async () => {
  const s = site();
  const alice = new SoftAuthenticator();
  const bob = new SoftAuthenticator();
  await register(s, alice, "1");
  await register(s, bob, "2");
  const bound = createPasskeys({
    rpId: "localhost",
    rpName: "Test",
    origins: [ORIGIN],
    session: Sessions,
  });
  s.router.post("/login/bound/:user", (context) =>
    Response.json(
      bound.authenticationOptions(context, { userId: context.params.user }),
    ));
  const options = await s.post("/login/bound/1");
  assert.equal(options.body.allowCredentials, undefined);
  const refused = await s.post("/login", await bob.get(options.body, ORIGIN));
  assert.equal(refused.status, 400);
  assert.match(refused.body, /belongs to another account/);
  const own = await s.post(
    "/login",
    await alice.get((await s.post("/login/bound/1")).body, ORIGIN),
  );
  assert.equal(own.status, 200, own.body);
  assert.equal(own.body.userId, "1");
});

Deno.test("passkeys: a user handle that names another account is refused", async () => {
  const s = site();
  const key = new SoftAuthenticator();
  await register(s, key, "1");
  key.credentials[0].userHandle = "Mg"; // "2"
  const refused = await signIn(s, key);
  assert.equal(refused.status, 400);
  assert.match(refused.body, /user handle does not match/);
});

Deno.test("passkeys: unknown passkeys, other origins and expired challenges are refused", async () => {
  const s = site({ challengeTtlMs: 1000 });
  const key = new SoftAuthenticator();
  await register(s, key);

  const stranger = new SoftAuthenticator();
  await stranger.create((await s.post("/register/options/9")).body, ORIGIN);
  const unknown = await signIn(s, stranger);
  assert.equal(unknown.status, 400);
  assert.match(unknown.body, /unknown passkey/);

  const options = await s.post("/login/options");
  const phished = await s.post(
    "/login",
    await key.get(options.body, "http://localhost:9999"),
  );
  assert.equal(phished.status, 400);
  assert.match(phished.body, /origin/i);

  const late = await s.post("/login/options");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const expired = await s.post("/login", await key.get(late.body, ORIGIN));
  assert.equal(expired.status, 400);
  assert.match(expired.body, /the challenge has expired/);
});

Deno.test("passkeys: malformed responses get 400 naming the field", async () => {
  const s = site();
  const cases: [unknown, RegExp][] = [
    ["text", /the response must be an object/],
    [{}, /id must be a non-empty base64url string/],
    [{ id: "a+b", rawId: "a+b" }, /id is not base64url/],
    [{ id: "ab", rawId: "cd" }, /id and rawId differ/],
    [{ id: "ab", rawId: "ab", type: "x" }, /type must be "public-key"/],
    [
      { id: "ab", rawId: "ab", type: "public-key", response: {} },
      /response.clientDataJSON must be/,
    ],
    [
      {
        id: "a".repeat(2000),
        rawId: "a".repeat(2000),
        type: "public-key",
        response: {},
      },
      /id is 2000 characters, over 1364/,
    ],
  ];
  for (const [body, message] of cases) {
    await s.post("/login/options");
    const answer = await s.post("/login", body);
    assert.equal(answer.status, 400);
    assert.match(answer.body, message);
  }
  await s.post("/register/options/7");
  const noAttestation = await s.post("/register", {
    id: "ab",
    rawId: "ab",
    type: "public-key",
    response: { clientDataJSON: "e30" },
  });
  assert.equal(noAttestation.status, 400);
  assert.match(noAttestation.body, /response.attestationObject must be/);
});

Deno.test("passkeys: refusals are JSON for clients that ask for JSON", async () => {
  const s = site();
  const response = await s.router.fetch(
    new Request("http://localhost/login", {
      method: "POST",
      headers: { accept: "application/json" },
      body: "{}",
    }),
  );
  assert.equal(response.status, 400);
  assert.deepEqual(await response.json(), {
    error:
      "Passkey sign-in: no authentication challenge in this session (used already, or never asked for)",
  });
});

Deno.test("createPasskeys: refuses origins that cannot hold passkeys, and user ids over 64 bytes", async () => {
  const base = { rpId: "example.com", rpName: "x", session: Sessions };
  for (
    const origin of [
      "http://example.com",
      "https://example.com/path",
      "example.com",
    ]
  ) {
    assert.throws(
      () => createPasskeys({ ...base, origins: [origin] }),
      /must be an https: origin/,
    );
  }
  assert.throws(
    () => createPasskeys({ ...base, origins: [] }),
    /at least one origin/,
  );
  const s = site();
  const router = createRouter({
    middleware: [
      session(
        Sessions,
        createMemorySessionStorage({ cookie: { secrets: ["s".repeat(32)] } }),
      ),
    ],
  });
  const passkeys = createPasskeys({ ...base, origins: [ORIGIN] });
  let thrown: unknown;
  router.post("/x", async (context) => {
    try {
      await passkeys.registrationOptions(context, {
        id: "x".repeat(65),
        name: "x",
      });
    } catch (error) {
      thrown = error;
    }
    return new Response("ok");
  });
  await router.fetch(new Request("http://localhost/x", { method: "POST" }));
  assert.match(String(thrown), /1 to 64 bytes of UTF-8, not 65/);
  assert.ok(s);
});

Deno.test("passkeys: without session() under the key, a TypeError says so", async () => {
  const passkeys = createPasskeys({
    rpId: "localhost",
    rpName: "x",
    origins: [ORIGIN],
    session: Sessions,
  });
  const router = createRouter();
  let thrown: unknown;
  router.post("/x", (context) => {
    try {
      passkeys.authenticationOptions(context);
    } catch (error) {
      thrown = error;
    }
    return new Response("ok");
  });
  await router.fetch(new Request("http://localhost/x", { method: "POST" }));
  assert.ok(thrown instanceof TypeError);
  assert.match(thrown.message, /need a session/);
});
