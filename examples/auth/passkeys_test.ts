// The example app's passkeys in process, with a software authenticator
// (the browser run is passkeys_browser_test.ts): sign-in, who may change
// which passkey, refusals as 400 (never 500), the shared address limit,
// and a password reset ending passkey sessions too.
import assert from "node:assert/strict";
import { SoftAuthenticator } from "../../passkeys/_test_authenticator.ts";
import { Client, read, testApp } from "./_test_app.ts";
import { createConsoleMailer } from "./mailer.ts";

const ORIGIN = "http://localhost:8000";
const JSON_HEADERS = {
  "content-type": "application/json",
  accept: "application/json",
};

async function postJson(client: Client, path: string, body: unknown) {
  const response = await client.request(path, {
    method: "POST",
    headers: JSON_HEADERS,
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return {
    status: response.status,
    json: response.headers.get("content-type")?.includes("json")
      ? JSON.parse(text)
      : text,
  };
}

async function addPasskey(client: Client, key: SoftAuthenticator, name = "") {
  // Adding a passkey needs a fresh confirmation of the password.
  const confirmed = await client.post("/auth/confirm?returnTo=%2Fprofile", {
    password: "correct horse",
  });
  assert.equal(confirmed.status, 303);
  const options = await postJson(client, "/passkeys/register/options", {});
  assert.equal(options.status, 200, JSON.stringify(options.json));
  return await postJson(client, "/passkeys/register", {
    name: name || undefined,
    credential: await key.create(options.json, ORIGIN),
  });
}

async function passkeySignIn(
  client: Client,
  key: SoftAuthenticator,
  email?: string,
) {
  const options = await postJson(
    client,
    "/passkeys/login/options",
    email ? { email } : {},
  );
  assert.equal(options.status, 200);
  return await postJson(
    client,
    "/passkeys/login?returnTo=%2Fprofile",
    await key.get(options.json, ORIGIN),
  );
}

Deno.test("example passkeys: add one on the profile, then sign in with it without an email, back to returnTo", async () => {
  const { app, close } = await testApp();
  const ada = new Client(app);
  await ada.register("ada@example.com");
  const key = new SoftAuthenticator();
  const added = await addPasskey(ada, key, "Laptop");
  assert.equal(added.status, 200, JSON.stringify(added.json));
  assert.deepEqual(added.json, { location: "/profile" });
  const profile = await read(await ada.get("/profile"));
  assert.match(profile.body, /Passkey “Laptop” added\./);
  assert.match(profile.body, /<strong>Laptop<\/strong>/);

  const phone = new Client(app);
  const signedIn = await passkeySignIn(phone, key);
  assert.equal(signedIn.status, 200, JSON.stringify(signedIn.json));
  assert.deepEqual(signedIn.json, { location: "/profile" });
  const page = await read(await phone.get("/profile"));
  assert.equal(page.status, 200);
  assert.match(page.body, /ada@example\.com/);
  assert.match(page.body, /last used <time/);
  close();
});

Deno.test("example passkeys: nobody renames or removes another user's passkey; guests cannot add one", async () => {
  const { app, close } = await testApp();
  const ada = new Client(app);
  await ada.register("ada@example.com");
  const key = new SoftAuthenticator();
  await addPasskey(ada, key);
  const id = key.credentials.map((c) => c.id)[0];
  const credentialId = btoa(String.fromCharCode(...id)).replace(/\+/g, "-")
    .replace(/\//g, "_").replace(/=+$/, "");

  const mallory = new Client(app);
  await mallory.register("mallory@example.com");
  for (const method of ["PUT", "DELETE"]) {
    const answer = await mallory.post(`/passkeys/${credentialId}`, {
      _method: method,
      name: "mine now",
    });
    assert.equal(answer.status, 303);
    assert.match(
      (await read(await mallory.get("/profile"))).body,
      /No such passkey\./,
    );
  }
  const still = await read(await ada.get("/profile"));
  assert.match(still.body, /<strong>Passkey 1<\/strong>/);

  const guest = new Client(app);
  const refused = await guest.request("/passkeys/register/options", {
    method: "POST",
    headers: JSON_HEADERS,
    body: "{}",
  });
  assert.equal(refused.status, 302);
  assert.match(refused.headers.get("location")!, /^\/auth\/login/);

  // Ada renames, then removes her own.
  await ada.post(`/passkeys/${credentialId}`, { _method: "PUT", name: "Work" });
  assert.match((await read(await ada.get("/profile"))).body, /<strong>Work/);
  const empty = await ada.post(`/passkeys/${credentialId}`, {
    _method: "PUT",
    name: " ",
  });
  assert.equal(empty.status, 303);
  assert.match(
    (await read(await ada.get("/profile"))).body,
    /A passkey name is 1 to 64 characters\./,
  );
  await ada.post(`/passkeys/${credentialId}`, { _method: "DELETE" });
  const gone = await read(await ada.get("/profile"));
  assert.match(gone.body, /Passkey removed\./);
  assert.match(gone.body, /You have no passkey yet/);
  const after = await passkeySignIn(new Client(app), key);
  assert.equal(after.status, 400);
  assert.match(after.json.error, /unknown passkey/);
  close();
});

Deno.test("example passkeys: bad bodies and refused responses are 400 with the reason, never 500", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  const cases: [string, unknown, RegExp][] = [
    ["/passkeys/login/options", "{not json", /JSON/i],
    ["/passkeys/login/options", { email: "x".repeat(300) }, /email/],
    ["/passkeys/login", {}, /no authentication challenge/],
  ];
  for (const [path, body, reason] of cases) {
    const answer = await postJson(client, path, body);
    assert.equal(answer.status, 400, `${path}: ${JSON.stringify(answer)}`);
    assert.match(answer.json.error, reason);
  }
  const big = await postJson(client, "/passkeys/login", {
    pad: "x".repeat(70 * 1024),
  });
  assert.equal(big.status, 413);
  close();
});

Deno.test("example passkeys: with an email typed, only that account's passkey signs in, and the options are the same for any email", async () => {
  const { app, close } = await testApp();
  const ada = new Client(app);
  await ada.register("ada@example.com");
  const key = new SoftAuthenticator();
  await addPasskey(ada, key);

  const shapes = new Set<string>();
  for (const email of ["ada@example.com", "admin@example.com", "no@x.io"]) {
    const options = await postJson(new Client(app), "/passkeys/login/options", {
      email,
    });
    shapes.add(Object.keys(options.json).sort().join());
  }
  assert.equal(shapes.size, 1);

  for (const email of ["admin@example.com", "nobody@example.com"]) {
    const refused = await passkeySignIn(new Client(app), key, email);
    assert.equal(refused.status, 400);
    assert.match(refused.json.error, /belongs to another account/);
  }
  const own = await passkeySignIn(new Client(app), key, "ADA@example.com");
  assert.equal(own.status, 200);
  close();
});

Deno.test("example passkeys: failed passkey sign-ins spend the address's login budget, shared with passwords", async () => {
  const { app, close } = await testApp({ loginAddressLimit: 2 });
  const client = new Client(app);
  const stranger = new SoftAuthenticator();
  // A passkey this app never registered.
  await stranger.create({
    rp: { id: "localhost", name: "x" },
    user: { id: "OTk", name: "x", displayName: "x" },
    challenge: "AAAA",
    pubKeyCredParams: [{ alg: -7, type: "public-key" }],
  }, ORIGIN);
  assert.equal((await passkeySignIn(client, stranger)).status, 400);
  await client.login("admin@example.com", "wrong password");
  const limited = await passkeySignIn(client, stranger);
  assert.equal(limited.status, 429);
  assert.match(limited.json.error, /Too many login attempts/);
  close();
});

Deno.test("example passkeys: a password reset ends passkey sessions too", async () => {
  const mails: string[] = [];
  const { app, close } = await testApp({
    // Only the reset mail (registration sends a verification mail too).
    mailer: createConsoleMailer((text) => {
      if (/^Subject: Reset/m.test(text)) mails.push(text);
    }),
  });
  const ada = new Client(app);
  await ada.register("ada@example.com");
  const key = new SoftAuthenticator();
  await addPasskey(ada, key);
  const phone = new Client(app);
  assert.equal((await passkeySignIn(phone, key)).status, 200);
  assert.equal((await phone.get("/dashboard")).status, 200);

  await new Client(app).post("/password/forgot", { email: "ada@example.com" });
  for (let i = 0; i < 200 && mails.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const path = mails[0].match(/\/password\/reset\/[\w-]{43}/)![0];
  await new Client(app).post(path, { password: "a new password" });
  assert.equal((await phone.get("/dashboard")).status, 302);
  // The passkey itself still works: a new sign-in is a new session.
  assert.equal((await passkeySignIn(phone, key)).status, 200);
  assert.equal((await phone.get("/dashboard")).status, 200);
  close();
});
