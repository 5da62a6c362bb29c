import assert from "node:assert/strict";
import { SessionObject as Session } from "./session.ts";
import {
  loadSession,
  mergeRecord,
  SESSION_ID,
  stateOf,
  toRecord,
} from "./session.ts";

Deno.test("a new session is clean and makes its id on first use", () => {
  const session = new Session();
  assert.equal(session.dirty, false);
  assert.equal(stateOf(session).id, undefined);
  assert.match(session.id, SESSION_ID);
  assert.equal(session.id, session.id);
  assert.notEqual(new Session().id, session.id);
});

Deno.test("set, get, has, unset and the dirty flag", () => {
  const session = new Session<{ n: number; o: { a: number } }>();
  assert.equal(session.get("n"), undefined);
  session.set("n", 1);
  assert.equal(session.dirty, true);
  assert.equal(session.get("n"), 1);
  assert.equal(session.has("n"), true);
  const loaded = loadSession(
    toRecord(stateOf(session), 1e15),
    "x".repeat(24),
    {},
  );
  assert.equal(loaded.dirty, false);
  loaded.set("n", 1);
  assert.equal(loaded.dirty, false, "same primitive: no change");
  loaded.unset("o");
  assert.equal(loaded.dirty, false, "unset of a missing name: no change");
  loaded.set("n", undefined as unknown as number);
  assert.equal(loaded.has("n"), false);
  assert.equal(loaded.dirty, true);
});

Deno.test("flash values: not now, next request only", () => {
  const session = new Session();
  session.flash("error", "bad");
  assert.equal(session.get("error"), undefined);
  const next = loadSession(
    toRecord(stateOf(session), 1e15),
    "x".repeat(24),
    {},
  );
  assert.equal(next.get("error"), "bad");
  assert.equal(next.dirty, true, "the flash must be cleared by a save");
  const after = loadSession(toRecord(stateOf(next), 1e15), "x".repeat(24), {});
  assert.equal(after.get("error"), undefined);
});

Deno.test("regenerateId changes the id and marks the old one for deletion", () => {
  const id = "a".repeat(24);
  const kept = loadSession({ v: { u: 1 }, e: 1e15 }, id, {});
  kept.regenerateId();
  assert.notEqual(kept.id, id);
  assert.equal(stateOf(kept).deleteId, undefined);
  assert.equal(kept.get("u"), 1);
  const deleted = loadSession({ v: { u: 1 }, e: 1e15 }, id, {});
  deleted.regenerateId(true);
  assert.equal(stateOf(deleted).deleteId, id);
  assert.equal(deleted.dirty, true);
});

Deno.test("a destroyed session reads nothing and refuses writes", () => {
  const session = loadSession({ v: { u: 1 }, e: 1e15 }, "a".repeat(24), {});
  session.destroy();
  session.destroy();
  assert.equal(session.destroyed, true);
  assert.equal(session.get("u"), undefined);
  assert.equal(session.has("u"), false);
  assert.throws(() => session.set("u", 2), /destroyed/);
  assert.throws(() => session.unset("u"), /destroyed/);
  assert.throws(() => session.flash("u", 2), /destroyed/);
  assert.throws(() => session.regenerateId(true), /destroyed/);
});

Deno.test("mergeRecord applies this request's changes on a newer record", () => {
  const session = loadSession(
    { v: { a: 1, b: 2 }, f: { note: { x: 1 } }, e: 1 },
    "a".repeat(24),
    {},
  );
  session.set("a", 10);
  session.unset("b");
  session.flash("next", "n");
  const merged = mergeRecord(
    { v: { a: 1, b: 2, c: 3 }, f: { note: { x: 1 }, other: "o" }, e: 1 },
    stateOf(session),
    99,
  );
  assert.deepEqual(merged, {
    v: { a: 10, c: 3 },
    f: { other: "o", next: "n" },
    e: 99,
  });
});

Deno.test("names such as __proto__ are plain names", () => {
  const session = new Session();
  session.set("__proto__", { polluted: true });
  const record = JSON.parse(JSON.stringify(toRecord(stateOf(session), 1e15)));
  const loaded = loadSession(record, "a".repeat(24), {});
  assert.deepEqual(loaded.get("__proto__"), { polluted: true });
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
