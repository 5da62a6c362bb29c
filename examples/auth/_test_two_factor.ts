// Two-factor set-up shared by the tests of enrolment and of backup codes.
import assert from "node:assert/strict";
import { totpCode } from "@fetchkit/toolkit/totp";
import { Client, read } from "./_test_app.ts";
import { confirm } from "./_test_confirm.ts";

/** The backup codes listed on a page (`<ol id="backup-codes">`). */
export function codesOf(body: string): string[] {
  const list = body.match(/<ol id="backup-codes">([\s\S]*?)<\/ol>/)?.[1];
  assert.ok(list, `no backup codes on the page: ${body}`);
  return [...list.matchAll(/<li>([a-z2-7]{4}-[a-z2-7]{4})<\/li>/g)]
    .map((match) => match[1]);
}

/**
 * Registers `email` on a new client and turns 2FA on; returns the client,
 * the secret read from the page and the backup codes.
 */
export async function enrolled(
  app: Client["app"],
  email: string,
  password: string,
): Promise<{ client: Client; secret: string; codes: string[] }> {
  const client = new Client(app);
  await client.register(email, password);
  await confirm(client, password, "/profile/two-factor");
  const page = await read(await client.get("/profile/two-factor"));
  const secret = page.body.match(/id="totp-secret">([A-Z2-7 ]+)</)![1]
    .replaceAll(" ", "");
  const enabled = await read(
    await client.post("/profile/two-factor", { code: await totpCode(secret) }),
  );
  assert.equal(enabled.status, 200);
  return { client, secret, codes: codesOf(enabled.body) };
}
