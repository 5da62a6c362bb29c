import assert from "node:assert/strict";
import { createApp } from "./app.ts";
import { createSessionStorage } from "./sessions.ts";
import { createUserStore, EmailInUseError } from "./users.ts";
import { Client, SECRET, testApp } from "./_test_app.ts";

Deno.test("users: sequential ids, unique case-insensitive emails", async () => {
  const kv = await Deno.openKv(":memory:");
  const users = createUserStore(kv);
  const a = await users.create({
    email: "A@x.example",
    name: "A",
    password: "h",
  });
  const b = await users.create({
    email: "b@x.example",
    name: "B",
    password: "h",
  });
  assert.deepEqual([a.id, b.id], [1, 2]);
  assert.equal(a.role, "user");
  assert.ok(a.createdAt instanceof Date);
  await assert.rejects(
    users.create({ email: "a@X.EXAMPLE", name: "A2", password: "h" }),
    EmailInUseError,
  );
  assert.equal((await users.findByEmail("a@x.example"))?.id, 1);
  assert.equal((await users.setRole(2, "moderator"))?.role, "moderator");
  assert.equal(await users.setRole(99, "admin"), null);
  assert.deepEqual((await users.list()).map((u) => u.id), [1, 2]);
  kv.close();
});

Deno.test("users: markEmailVerified() only for the address still held; changeEmail() moves the index atomically; remove() frees the address", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const users = createUserStore(kv);
    const ada = await users.create({
      email: "Ada@Example.com",
      name: "Ada",
      password: "hash",
    });
    const bob = await users.create({
      email: "bob@example.com",
      name: "Bob",
      password: "hash",
    });
    assert.equal(ada.emailVerified, undefined);
    assert.equal(
      (await users.markEmailVerified(ada.id, "ada@example.com"))?.emailVerified,
      true,
    );
    assert.equal(
      await users.markEmailVerified(ada.id, "other@example.com"),
      null,
    );
    await assert.rejects(
      () => users.changeEmail(ada.id, "BOB@example.com"),
      EmailInUseError,
    );
    const moved = (await users.changeEmail(ada.id, "ada@new.example"))!;
    assert.equal(moved.email, "ada@new.example");
    assert.equal((await users.findByEmail("ada@new.example"))?.id, ada.id);
    assert.equal(await users.findByEmail("ada@example.com"), null);
    assert.equal(
      await users.markEmailVerified(ada.id, "ada@example.com"),
      null,
    );
    assert.equal(await users.changeEmail(99, "x@example.com"), null);
    assert.equal(await users.remove(bob.id), true);
    assert.equal(await users.remove(bob.id), false);
    assert.equal(await users.findByEmail("bob@example.com"), null);
    const again = await users.create({
      email: "bob@example.com",
      name: "Bob",
      password: "hash",
    });
    assert.notEqual(again.id, bob.id);
  } finally {
    kv.close();
  }
});

Deno.test("users: concurrent registrations of one email: exactly one wins", async () => {
  const { app, kv, close } = await testApp();
  const clients = Array.from({ length: 8 }, () => new Client(app));
  const responses = await Promise.all(
    clients.map((client, i) =>
      client.register(i % 2 ? "race@example.com" : "RACE@example.com")
    ),
  );
  const winners = responses.filter((r) =>
    r.headers.get("location") === "/dashboard"
  );
  assert.equal(winners.length, 1);
  assert.equal(
    responses.filter((r) => r.headers.get("location") === "/auth/register")
      .length,
    7,
  );
  const users = await createUserStore(kv).list();
  assert.equal(
    users.filter((u) => u.email.toLowerCase() === "race@example.com").length,
    1,
  );
  close();
});

Deno.test("users: concurrent creates of one email in the store: one wins, the rest EmailInUseError", async () => {
  const kv = await Deno.openKv(":memory:");
  const users = createUserStore(kv);
  const results = await Promise.allSettled(
    Array.from(
      { length: 10 },
      (_, i) =>
        users.create({
          email: i % 2 ? "same@x.example" : "SAME@x.example",
          name: "S",
          password: "h",
        }),
    ),
  );
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
  for (const r of results) {
    if (r.status === "rejected") assert.ok(r.reason instanceof EmailInUseError);
  }
  kv.close();
});

Deno.test("users: many concurrent registrations of different emails get distinct ids", async () => {
  const kv = await Deno.openKv(":memory:");
  const users = createUserStore(kv);
  const created = await Promise.all(
    Array.from(
      { length: 20 },
      (_, i) =>
        users.create({ email: `u${i}@x.example`, name: "U", password: "h" }),
    ),
  );
  assert.deepEqual(
    created.map((u) => u.id).sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => i + 1),
  );
  kv.close();
});

Deno.test("passwords: real bcrypt at cost 12; the plain text is nowhere in KV or the log", async () => {
  const log: string[] = [];
  const { app, kv, close } = await testApp({
    cost: 12,
    log: (line) => log.push(line),
  });
  const client = new Client(app);
  const password = "plain-text-password-42";
  await client.register("ada@example.com", password);
  const user = await createUserStore(kv).findByEmail("ada@example.com");
  assert.match(user!.password, /^\$2b\$12\$/);
  await client.post("/auth/logout");
  await client.login("ada@example.com", password + "-wrong");
  assert.equal(
    (await client.login("ada@example.com", password)).headers.get("location"),
    "/dashboard",
  );

  const decoder = new TextDecoder();
  for await (const entry of kv.list({ prefix: [] })) {
    // Session records and counters may hold bytes: read them as text too.
    const text = JSON.stringify(
      entry,
      (_key, value) =>
        value instanceof Uint8Array ? decoder.decode(value) : value,
    );
    assert.ok(
      !text.includes(password),
      `plain password under ${String(entry.key)}`,
    );
  }
  assert.ok(log.length >= 4, "the logger saw the requests");
  assert.ok(!log.join("\n").includes(password), "plain password in the log");
  close();
});

Deno.test("a restart keeps sessions: same KV file, same secret", async () => {
  const dir = await Deno.makeTempDir({ prefix: "auth-restart-" });
  const path = `${dir}/auth.sqlite`;
  const start = async () => {
    const kv = await Deno.openKv(path);
    const sessions = createSessionStorage({
      kind: "kv",
      kv,
      secrets: [SECRET],
      secure: false,
    });
    return {
      kv,
      app: await createApp({ kv, sessions, bcryptCost: 4, log: null }),
    };
  };
  const first = await start();
  const client = new Client(first.app);
  await client.register("ada@example.com");
  first.kv.close();

  const second = await start();
  const again = new Client(second.app);
  again.cookies = client.cookies;
  const response = await again.get("/dashboard");
  assert.equal(response.status, 200);
  assert.match(await response.text(), /ada@example\.com/);
  second.kv.close();
  await Deno.remove(dir, { recursive: true });
});
