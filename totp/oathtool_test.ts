// totpCode and verifyTotp against Debian's `oathtool --totp` on random
// secrets, times, digits and hashes. Deno-only (runs a program).
import assert from "node:assert/strict";
import {
  createTotpSecret,
  type TotpAlgorithm,
  totpCode,
  verifyTotp,
} from "@fetchkit/toolkit/totp";
import { run, toolOrSkip } from "./_test_tools.ts";

const ALGORITHMS: TotpAlgorithm[] = ["SHA-1", "SHA-256", "SHA-512"];
const OATH_NAMES = {
  "SHA-1": "sha1",
  "SHA-256": "sha256",
  "SHA-512": "sha512",
};

Deno.test("totpCode: the same codes as oathtool --totp on 60 random secrets and times", async () => {
  const oathtool = await toolOrSkip("oathtool", "the oathtool cross-check");
  if (oathtool === undefined) return;
  for (let i = 0; i < 60; i++) {
    const algorithm = ALGORITHMS[i % 3];
    const digits = i % 2 === 0 ? 6 : 8;
    const period = [30, 60, 15][i % 4 === 3 ? 1 : i % 5 === 4 ? 2 : 0];
    const secret = createTotpSecret(16 + ((i * 7) % 49));
    // Any second from 1970 to 2100.
    const seconds = Math.floor(Math.random() * 4_102_444_800);
    const expected = (await run(oathtool, [
      "--totp=" + OATH_NAMES[algorithm],
      "--base32",
      `--digits=${digits}`,
      `--time-step-size=${period}s`,
      `--now=@${seconds}`,
      secret,
    ])).trim();
    const options = {
      time: seconds * 1000,
      digits,
      period,
      algorithm,
    } as const;
    const context = JSON.stringify({ secret, ...options });
    assert.equal(await totpCode(secret, options), expected, context);
    assert.deepEqual(
      await verifyTotp(secret, expected, options),
      { step: Math.floor(seconds / period) },
      context,
    );
  }
});

Deno.test("verifyTotp: accepts oathtool's codes one step either side (--window)", async () => {
  const oathtool = await toolOrSkip("oathtool", "the oathtool cross-check");
  if (oathtool === undefined) return;
  const secret = createTotpSecret();
  const seconds = 1_800_000_015;
  // oathtool --window=1 prints the codes of this step and the next one.
  const codes = (await run(oathtool, [
    "--totp",
    "--base32",
    "--window=1",
    `--now=@${seconds - 30}`,
    secret,
  ])).trim().split("\n");
  assert.equal(codes.length, 2);
  const time = seconds * 1000;
  assert.deepEqual(await verifyTotp(secret, codes[0], { time }), {
    step: Math.floor(seconds / 30) - 1,
  });
  assert.deepEqual(await verifyTotp(secret, codes[1], { time }), {
    step: Math.floor(seconds / 30),
  });
  assert.equal(await verifyTotp(secret, codes[0], { time, window: 0 }), null);
});
