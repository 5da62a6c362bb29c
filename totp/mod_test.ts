// TOTP against RFC 6238's Appendix B, the verify rules (window, one use,
// bad input is null), URIs, QR SVG shape and backup codes. Portable:
// runs on Node and Bun too (oathtool and zbarimg checks are in
// oathtool_test.ts and qr_test.ts).
import assert from "node:assert/strict";
import {
  createBackupCodes,
  createTotpSecret,
  hashBackupCode,
  normalizeBackupCode,
  type TotpAlgorithm,
  totpCode,
  totpQrSvg,
  totpUri,
  verifyTotp,
} from "@fetchkit/toolkit/totp";
import { decodeBase32, encodeBase32 } from "./_base32.ts";

const ascii = (text: string) => encodeBase32(new TextEncoder().encode(text));
// RFC 6238 Appendix B: the seeds are these ASCII strings, 20, 32 and 64 bytes.
const SEEDS: Record<TotpAlgorithm, string> = {
  "SHA-1": ascii("12345678901234567890"),
  "SHA-256": ascii("12345678901234567890123456789012"),
  "SHA-512": ascii(
    "1234567890123456789012345678901234567890123456789012345678901234",
  ),
};
const VECTORS: [number, string, TotpAlgorithm][] = [
  [59, "94287082", "SHA-1"],
  [59, "46119246", "SHA-256"],
  [59, "90693936", "SHA-512"],
  [1111111109, "07081804", "SHA-1"],
  [1111111109, "68084774", "SHA-256"],
  [1111111109, "25091201", "SHA-512"],
  [1111111111, "14050471", "SHA-1"],
  [1111111111, "67062674", "SHA-256"],
  [1111111111, "99943326", "SHA-512"],
  [1234567890, "89005924", "SHA-1"],
  [1234567890, "91819424", "SHA-256"],
  [1234567890, "93441116", "SHA-512"],
  [2000000000, "69279037", "SHA-1"],
  [2000000000, "90698825", "SHA-256"],
  [2000000000, "38618901", "SHA-512"],
  [20000000000, "65353130", "SHA-1"],
  [20000000000, "77737706", "SHA-256"],
  [20000000000, "47863826", "SHA-512"],
];

Deno.test("totpCode: RFC 6238 Appendix B vectors (SHA-1/256/512, 8 digits)", async () => {
  for (const [seconds, code, algorithm] of VECTORS) {
    const options = { time: seconds * 1000, digits: 8 as const, algorithm };
    assert.equal(await totpCode(SEEDS[algorithm], options), code);
    // verifyTotp accepts each at its step, and the 6-digit code is the tail.
    assert.deepEqual(await verifyTotp(SEEDS[algorithm], code, options), {
      step: Math.floor(seconds / 30),
    });
    assert.equal(
      await totpCode(SEEDS[algorithm], { ...options, digits: 6 }),
      code.slice(2),
    );
  }
});

Deno.test("verifyTotp: a window of steps either side, and no further", async () => {
  const secret = createTotpSecret();
  const time = 1_700_000_000_000;
  const step = Math.floor(time / 30_000);
  const at = (offset: number) =>
    totpCode(secret, { time: time + offset * 30_000 });
  assert.deepEqual(await verifyTotp(secret, await at(-1), { time }), {
    step: step - 1,
  });
  assert.deepEqual(await verifyTotp(secret, await at(1), { time }), {
    step: step + 1,
  });
  assert.equal(await verifyTotp(secret, await at(-2), { time }), null);
  assert.equal(await verifyTotp(secret, await at(2), { time }), null);
  assert.deepEqual(
    await verifyTotp(secret, await at(-2), { time, window: 2 }),
    { step: step - 2 },
  );
  assert.equal(
    await verifyTotp(secret, await at(-1), { time, window: 0 }),
    null,
  );
});

Deno.test("verifyTotp: a code of a step at or before afterStep is refused (replay)", async () => {
  const secret = createTotpSecret();
  const time = 1_700_000_000_000;
  const code = await totpCode(secret, { time });
  const first = await verifyTotp(secret, code, { time });
  assert.ok(first);
  // The same code, again within its window: refused.
  assert.equal(
    await verifyTotp(secret, code, {
      time: time + 20_000,
      afterStep: first.step,
    }),
    null,
  );
  // An older code, still within the window: refused too.
  const older = await totpCode(secret, { time: time - 30_000 });
  assert.equal(
    await verifyTotp(secret, older, { time, afterStep: first.step }),
    null,
  );
  // The next step's code is fine.
  const next = await totpCode(secret, { time: time + 30_000 });
  assert.deepEqual(
    await verifyTotp(secret, next, {
      time: time + 30_000,
      afterStep: first.step,
    }),
    { step: first.step + 1 },
  );
});

Deno.test("verifyTotp: bad codes and secrets are null, never a throw", async () => {
  const secret = createTotpSecret();
  const code = await totpCode(secret);
  for (
    const bad of [
      "",
      "12345",
      "1234567",
      "12345a",
      " 12345",
      "１２３４５６",
      "+12345",
      "-12345",
      "1e5000",
      code + "0",
    ]
  ) {
    assert.equal(await verifyTotp(secret, bad), null, JSON.stringify(bad));
  }
  for (const badSecret of ["", "1", "JBSWY3DP!", "Ä", "A".repeat(5000)]) {
    assert.equal(await verifyTotp(badSecret, code), null, badSecret);
  }
  // deno-lint-ignore no-explicit-any -- input from untyped callers
  const untyped = verifyTotp as any;
  assert.equal(await untyped(secret, 123456), null);
  assert.equal(await untyped(undefined, code), null);
  assert.equal(await untyped(secret, null), null);
  // Options are the program's own: out of range is a TypeError.
  await assert.rejects(verifyTotp(secret, code, { window: 11 }), /window/);
  await assert.rejects(
    // deno-lint-ignore no-explicit-any -- a wrong option on purpose
    verifyTotp(secret, code, { digits: 7 as any }),
    /digits must be 6 or 8/,
  );
  await assert.rejects(totpCode("not base32!"), /base32/);
});

Deno.test("verifyTotp: 8 digits, 60 s periods and lower-case or spaced secrets", async () => {
  const secret = createTotpSecret(32);
  const options = {
    digits: 8 as const,
    period: 60,
    algorithm: "SHA-256" as const,
  };
  const code = await totpCode(secret, options);
  assert.equal(code.length, 8);
  assert.ok(await verifyTotp(secret.toLowerCase(), code, options));
  const spaced = secret.match(/.{1,4}/g)!.join(" ");
  assert.ok(await verifyTotp(spaced, code, options));
  assert.equal(await verifyTotp(secret, code.slice(2), options), null);
});

Deno.test("createTotpSecret: base32 of the bytes asked for, random", () => {
  const secret = createTotpSecret();
  assert.match(secret, /^[A-Z2-7]{32}$/);
  assert.equal(decodeBase32(secret)!.length, 20);
  assert.equal(decodeBase32(createTotpSecret(16))!.length, 16);
  assert.notEqual(createTotpSecret(), secret);
  assert.throws(() => createTotpSecret(8), /16 to 64 bytes/);
});

Deno.test("base32: RFC 4648 test vectors, both ways", () => {
  const vectors = [
    ["f", "MY"],
    ["fo", "MZXQ"],
    ["foo", "MZXW6"],
    ["foob", "MZXW6YQ"],
    ["fooba", "MZXW6YTB"],
    ["foobar", "MZXW6YTBOI"],
  ];
  for (const [text, encoded] of vectors) {
    assert.equal(ascii(text), encoded);
    assert.equal(
      new TextDecoder().decode(decodeBase32(encoded)!),
      text,
    );
  }
  assert.equal(new TextDecoder().decode(decodeBase32("MZXW6===")!), "foo");
  assert.equal(decodeBase32("MZXW7"), null, "non-zero trailing bits");
  assert.equal(decodeBase32("M"), null, "a lone character");
  assert.equal(decodeBase32("MZ=XW6"), null, "data after padding");
});

Deno.test("totpUri: issuer and account percent-encoded, options when not default", () => {
  assert.equal(
    totpUri({
      secret: "JBSWY3DPEHPK3PXP",
      issuer: "Ex & Co",
      account: "a+b@x.org",
    }),
    "otpauth://totp/Ex%20%26%20Co:a%2Bb%40x.org?secret=JBSWY3DPEHPK3PXP&issuer=Ex%20%26%20Co",
  );
  assert.equal(
    totpUri({
      secret: "jbsw y3dp",
      issuer: "Ex",
      account: "a",
      digits: 8,
      period: 60,
      algorithm: "SHA-256",
    }),
    "otpauth://totp/Ex:a?secret=JBSWY3DP&issuer=Ex&algorithm=SHA256&digits=8&period=60",
  );
  assert.throws(
    () => totpUri({ secret: "JBSWY3DP", issuer: "a:b", account: "x" }),
    /issuer must be a non-empty string without ":"/,
  );
  assert.throws(
    () => totpUri({ secret: "!!", issuer: "a", account: "x" }),
    /base32/,
  );
});

Deno.test("totpQrSvg: one SVG with a viewBox, a label and one path; too long is a RangeError", () => {
  const svg = totpQrSvg(
    totpUri({
      secret: createTotpSecret(),
      issuer: "Ex",
      account: "ada@example.com",
    }),
  );
  assert.match(
    svg,
    /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" viewBox="0 0 (\d+) \1"/,
  );
  assert.match(svg, /role="img" aria-label="QR code for an authenticator app"/);
  assert.equal(svg.match(/<path /g)?.length, 1);
  assert.ok(svg.length < 8000, `${svg.length} characters`);
  assert.throws(() => totpQrSvg("x".repeat(3000)), RangeError);
});

Deno.test("createBackupCodes: ten xxxx-xxxx lower-case base32 codes, all different", () => {
  const codes = createBackupCodes();
  assert.equal(codes.length, 10);
  for (const code of codes) assert.match(code, /^[a-z2-7]{4}-[a-z2-7]{4}$/);
  assert.equal(new Set(codes).size, 10);
  assert.equal(createBackupCodes(3).length, 3);
  assert.throws(() => createBackupCodes(0), /count must be 1 to 100/);
});

Deno.test("hashBackupCode: the same hash for the code however typed; another code differs", async () => {
  const [code, other] = createBackupCodes(2);
  const stored = await hashBackupCode(code);
  assert.match(stored, /^pbkdf2-sha256\$100000\$[0-9a-f]{64}$/);
  assert.equal(
    await hashBackupCode(code.toUpperCase().replace("-", " ")),
    stored,
  );
  assert.notEqual(await hashBackupCode(other), stored);
  assert.equal(normalizeBackupCode("12345678"), null, "1 and 8 are not base32");
  await assert.rejects(hashBackupCode("nope"), /xxxx-xxxx/);
});
