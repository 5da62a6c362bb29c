import assert from "node:assert/strict";
import {
  createContextKey,
  RequestContext,
} from "@fetchkit/toolkit/fetch-router";
import { deferValue, deferValues, hasValue } from "./context.ts";

Deno.test("context values: many keys, overwritten, deferred, past the flat array", () => {
  const context = new RequestContext(new Request("http://localhost/"));
  const { get, set, has } = context;
  const keys = Array.from({ length: 20 }, () => createContextKey(-1));
  const symbol = Symbol("s");
  assert.equal(has(keys[0]!), false);
  assert.equal(get(symbol), undefined);
  for (let i = 0; i < keys.length; i++) {
    set(keys[i]!, i);
    // Every key set so far reads back, before and after the 9th.
    for (let j = 0; j <= i; j++) assert.equal(get(keys[j]!), j);
    assert.equal(has(keys[i + 1] ?? symbol), false);
    assert.equal(get(keys[i + 1] ?? keys[0]!), i + 1 < keys.length ? -1 : 0);
  }
  set(keys[3]!, 33);
  assert.equal(get(keys[3]!), 33);
  let made = 0;
  deferValue(context, keys[19]!, (n: number) => {
    made++;
    return n * 2;
  }, 21);
  assert.equal(hasValue(context, keys[19]!), true);
  assert.equal(made, 0);
  assert.equal(get(keys[19]!), 42);
  assert.equal(get(keys[19]!), 42);
  assert.equal(made, 1);
  set(symbol, undefined);
  assert.equal(has(symbol), true);
});

Deno.test("context values: a deferred value in the flat array is made once", () => {
  const context = new RequestContext(new Request("http://localhost/"));
  const key = createContextKey("none");
  let made = 0;
  deferValue(context, key, (text: string) => {
    made++;
    return text.toUpperCase();
  }, "form");
  assert.equal(context.has(key), true);
  assert.equal(made, 0);
  assert.equal(context.get(key), "FORM");
  assert.equal(context.get(key), "FORM");
  assert.equal(made, 1);
  // A set replaces it unmade.
  const other = createContextKey(0);
  deferValue(context, other, () => {
    throw new Error("never made");
  }, undefined);
  context.set(other, 7);
  assert.equal(context.get(other), 7);
  // An undefined value is held (has), and read as undefined.
  const Maybe = createContextKey<string | undefined>("default");
  context.set(Maybe, undefined);
  assert.equal(context.has(Maybe), true);
  assert.equal(context.get(Maybe), undefined);
});

Deno.test("context values: one deferred source under two keys makes each key's value once, on its first read", () => {
  for (const before of [0, 3, 9]) {
    const context = new RequestContext(new Request("http://localhost/"));
    const { get, set, has } = context;
    // Values already held: none, a few, past the flat array.
    const others = Array.from({ length: before }, () => createContextKey(0));
    others.forEach((key, i) => set(key, i + 1));
    const A = createContextKey("a default");
    const B = createContextKey("b default");
    const made: unknown[] = [];
    deferValues(context, A, B, (source: string, key) => {
      made.push(key);
      return `${source} for ${key === A ? "A" : "B"}`;
    }, "pairs");
    assert.equal(has(A), true);
    assert.equal(has(B), true);
    assert.deepEqual(made, []);
    assert.equal(get(B), "pairs for B");
    assert.equal(get(B), "pairs for B");
    assert.deepEqual(made, [B]);
    assert.equal(get(A), "pairs for A");
    assert.equal(get(A), "pairs for A");
    assert.deepEqual(made, [B, A]);
    // A set replaces one key only.
    set(A, "replaced");
    assert.equal(get(A), "replaced");
    assert.equal(get(B), "pairs for B");
    others.forEach((key, i) => assert.equal(get(key), i + 1));
  }
  // Overwriting a deferred pair before it is read makes nothing.
  const context = new RequestContext(new Request("http://localhost/"));
  const A = createContextKey(0);
  const B = createContextKey(0);
  let made = 0;
  deferValues(context, A, B, () => ++made, null);
  context.set(A, 5);
  assert.equal(context.get(A), 5);
  assert.equal(made, 0);
  assert.equal(context.get(B), 1);
});
