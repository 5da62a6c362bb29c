import assert from "node:assert/strict";
import { createPasswords } from "./passwords.ts";

async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

function median(values: number[]): number {
  return values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
}

Deno.test("passwords: an unknown email costs a real bcrypt comparison at cost 12, like a wrong password", async () => {
  const passwords = await createPasswords();
  const hash = await passwords.hash("correct horse");
  assert.match(hash, /^\$2b\$12\$/);
  assert.equal(await passwords.verify("correct horse", hash), true);
  assert.equal(await passwords.verify("wrong horse", hash), false);
  assert.equal(await passwords.verify("correct horse", undefined), false);

  const wrong: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 3; i++) {
    wrong.push(await timed(() => passwords.verify("guess", hash)));
    unknown.push(await timed(() => passwords.verify("guess", undefined)));
  }
  // Generous bounds (a shared machine): the point is that the unknown
  // case is not the near-zero time of skipping bcrypt.
  assert.ok(
    median(unknown) > median(wrong) / 2,
    `unknown email ${median(unknown)} ms vs wrong password ${median(wrong)} ms`,
  );
});

Deno.test("passwords: over 72 bytes never matches (bcrypt would compare a prefix)", async () => {
  const passwords = await createPasswords({ cost: 4 });
  const long = "x".repeat(72);
  const hash = await passwords.hash(long);
  assert.equal(await passwords.verify(long, hash), true);
  assert.equal(await passwords.verify(long + "tail", hash), false);
});

Deno.test("passwords: a NUL is refused when hashing and never matches (bcrypt stops at it)", async () => {
  const passwords = await createPasswords({ cost: 4 });
  const empty = await passwords.hash("");
  // What bcrypt itself does: "\0\0\0" compares like "".
  assert.equal(await passwords.verify("\0\0\0", empty), false);
  await assert.rejects(
    () => passwords.hash("\0correct horse"),
    /at most 72 bytes of UTF-8 without NUL/,
  );
  await assert.rejects(() => passwords.hash("x".repeat(73)), /72 bytes/);
});
