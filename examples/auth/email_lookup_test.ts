// One email normalisation for every look-up and link: lower case of
// ASCII letters only, so "\u212Aate@example.com" (a Kelvin sign, which
// JavaScript's toLowerCase() turns into "k") is not kate@example.com:
// it finds no account, registers as another one, and a provider that
// verifies it does not open Kate's account.
import assert from "node:assert/strict";
import { createUserStore, normalizeEmail } from "./users.ts";
import { Client, testApp } from "./_test_app.ts";

const KELVIN = "\u212Aate@example.com";

Deno.test("users: the Kelvin sign does not find or take kate@example.com", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const users = createUserStore(kv);
    const kate = await users.create({
      email: "kate@example.com",
      name: "Kate",
      password: "h",
    });
    assert.equal(await users.findByEmail(KELVIN), null);
    assert.equal((await users.findByEmail("KATE@Example.COM"))?.id, kate.id);
    const other = await users.create({
      email: KELVIN,
      name: "K",
      password: "h",
    });
    assert.notEqual(other.id, kate.id);
    assert.equal((await users.findByEmail(KELVIN))?.id, other.id);
    assert.equal((await users.findByEmail("kate@example.com"))?.id, kate.id);
  } finally {
    kv.close();
  }
});

Deno.test("users: normalizeEmail lower-cases ASCII letters only", () => {
  assert.equal(normalizeEmail("Ada@Example.COM"), "ada@example.com");
  assert.equal(normalizeEmail(KELVIN), KELVIN);
  assert.equal(
    normalizeEmail("\u0130nci@example.com"),
    "\u0130nci@example.com",
  );
  assert.equal(normalizeEmail("ÉMILE@example.com"), "Émile@example.com");
});

Deno.test("auth app: a password login or reset for the Kelvin-sign address is not Kate's", async () => {
  const { app, close } = await testApp();
  try {
    assert.equal(
      (await new Client(app).register("kate@example.com", "kate password"))
        .status,
      303,
    );
    const login = await new Client(app).login(KELVIN, "kate password");
    assert.equal(login.headers.get("location"), "/auth/login");
    await login.body?.cancel();
  } finally {
    close();
  }
});
