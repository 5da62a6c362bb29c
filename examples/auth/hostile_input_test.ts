// Hostile form input: every field is bounded where it enters, so nothing
// attacker-sized reaches KV, the limiter, the session or bcrypt, and no
// input answers 5xx.
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";
import { GUEST_MAX_AGE } from "./sessions.ts";

/** Every KV entry's key and value, as JSON bytes. */
async function kvBytes(kv: Deno.Kv): Promise<number> {
  let bytes = 0;
  for await (const entry of kv.list({ prefix: [] })) {
    const value = entry.value;
    bytes += JSON.stringify(entry.key).length +
      (value instanceof Uint8Array
        ? value.byteLength
        : JSON.stringify(value).length);
  }
  return bytes;
}

Deno.test("login: an email over 2 KiB gets the form again (422), never reaching the limiter's KV key", async () => {
  const { app, kv, close } = await testApp();
  for (const length of [255, 2100, 4000]) {
    const response = await read(
      await new Client(app).login("a".repeat(length) + "@x.example", "pw"),
    );
    assert.equal(response.status, 422, `${length}`);
    assert.match(response.body, /at most 254 characters/);
  }
  for await (const entry of kv.list({ prefix: ["rate_limit"] })) {
    assert.fail(`limiter entry ${String(entry.key)}`);
  }
  // A login that reaches the password check is counted, by email and address.
  await new Client(app, "192.0.2.5").login("A@X.example", "wrong password");
  const keys = [];
  for await (const entry of kv.list({ prefix: ["rate_limit"] })) {
    keys.push(entry.key[1]);
  }
  assert.deepEqual(keys.sort(), [
    "login-address:192.0.2.5",
    "login-email:a@x.example",
  ]);
  close();
});

Deno.test("login and register: a body over the forms' limits gets 413 with the form", async () => {
  const { app, close } = await testApp();
  const big = "a".repeat(70_000);
  const cases: [string, Record<string, string>][] = [
    ["/auth/login", { email: big, password: "x" }],
    ["/auth/register", { email: "a@b.example", name: big, password: "pw" }],
    ["/auth/register", { email: big, name: "Ada", password: "longenough" }],
  ];
  for (const [path, form] of cases) {
    const client = new Client(app);
    const response = await read(await client.post(path, form));
    assert.equal(response.status, 413, path);
    assert.match(response.body, /<form method="post"/);
    assert.match(response.body, /larger than this page sends/);
    assert.doesNotMatch(response.body, /a{300}/, "nothing echoed");
    assert.equal(client.cookies.size, 0);
  }
  // Files have no place in these forms.
  const body = new FormData();
  body.append("email", "a@b.example");
  body.append("avatar", new File(["x"], "x.txt"));
  const withFile = await new Client(app).request("/auth/login", {
    method: "POST",
    body,
  });
  assert.equal(withFile.status, 413);
  await withFile.body?.cancel();
  close();
});

Deno.test("login: a body of stray % signs is a 400 with the form, or 413 past the limits", async () => {
  const { app, close } = await testApp();
  for (const [count, status] of [[3000, 400], [1_000_000, 413]]) {
    const response = await read(
      await new Client(app).request("/auth/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "email=" + "%".repeat(count),
      }),
    );
    assert.equal(response.status, status, `${count}`);
    assert.match(response.body, /<form method="post"/);
  }
  close();
});

Deno.test("login: a NUL password is refused (bcrypt would read it as empty), without counting an attempt", async () => {
  const { app, kv, close } = await testApp();
  for (const password of ["\0", "\0\0\0\0", "admin-password\0"]) {
    const response = await read(
      await new Client(app).login("admin@example.com", password),
    );
    assert.equal(response.status, 422);
    assert.match(response.body, /cannot contain a NUL/);
  }
  const key = ["rate_limit", "login-email:admin@example.com"];
  assert.equal((await kv.get(key)).value, null);
  await new Client(app).login("admin@example.com", "wrong password");
  assert.notEqual((await kv.get(key)).value, null, "a real attempt counts");
  close();
});

for (const storage of ["kv", "cookie"] as const) {
  Deno.test(`register (${storage} sessions): a 3,000-character name is 422; a taken email flashes bounded values`, async () => {
    const { app, close } = await testApp({ storage });
    const long = await read(
      await new Client(app).register(
        "ada@example.com",
        "longenough",
        "N".repeat(3000),
      ),
    );
    assert.equal(long.status, 422);
    await new Client(app).register("ada@example.com");
    // The longest input that passes the bounds, flashed into the session.
    const client = new Client(app);
    const email = "A".repeat(240) + "@example.com";
    await new Client(app).register(email);
    const taken = await client.register(email, "longenough", "é".repeat(100));
    assert.equal(taken.status, 303);
    const page = await read(await client.get("/auth/register"));
    assert.equal(page.status, 200);
    assert.match(page.body, /Email already in use/);
    assert.match(page.body, /value="é{100}"/);
    close();
  });
}

Deno.test("100 failed registrations with 50 KB names keep almost nothing, for minutes", async () => {
  const { app, kv, close } = await testApp();
  await new Client(app).register("ada@example.com");
  const before = await kvBytes(kv);
  for (let i = 0; i < 100; i++) {
    const client = new Client(app);
    const response = await client.register(
      "ada@example.com",
      "longenough",
      "n".repeat(50_000),
    );
    assert.equal(response.status, 413);
    await response.body?.cancel();
  }
  assert.equal(await kvBytes(kv), before, "a 413 stores nothing");
  // The largest flash a failure can leave: a taken email with a 100-character name.
  for (let i = 0; i < 100; i++) {
    const response = await new Client(app).register(
      "ada@example.com",
      "longenough",
      "n".repeat(100),
    );
    assert.equal(response.status, 303);
  }
  const grown = await kvBytes(kv) - before;
  assert.ok(grown < 100 * 300, `KV grew by ${grown} bytes`);
  const latest = Date.now() + GUEST_MAX_AGE * 1000 + 5000;
  const decoder = new TextDecoder();
  for await (const entry of kv.list<Uint8Array>({ prefix: ["sessions"] })) {
    if (entry.key[1] === "by_user") continue; // the devices index
    const record = JSON.parse(decoder.decode(entry.value));
    if (record.v?.userId !== undefined) continue;
    assert.ok(record.e <= latest, "a guest's session lives ten minutes");
  }
  close();
});

Deno.test("the lockout page says when to try again", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  for (let i = 0; i < 5; i++) await client.login("admin@example.com", "wrong");
  const refused = await client.login("admin@example.com", "wrong");
  // Five, then none until 15 minutes after the fifth.
  assert.equal(refused.headers.get("retry-after"), "900");
  const response = await read(refused);
  assert.equal(response.status, 429);
  assert.equal(response.location, null);
  assert.match(response.body, /Try again in 15 minutes\./);
  close();
});

Deno.test("registering greets the new user once", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.register("ada@example.com", "longenough", "Ada");
  const page = await read(await client.get("/dashboard"));
  assert.match(page.body, /role="status">Welcome, Ada!</);
  assert.doesNotMatch(
    (await read(await client.get("/dashboard"))).body,
    /Welcome, Ada!/,
  );
  close();
});
