// Test helper: the password confirmation (re-authentication) of a client.
import assert from "node:assert/strict";
import type { Client } from "./_test_app.ts";

/** Confirms the password (re-authentication), coming back to `returnTo`. */
export async function confirm(
  client: Client,
  password: string,
  returnTo: string,
): Promise<void> {
  const answer = await client.post(
    `/auth/confirm?returnTo=${encodeURIComponent(returnTo)}`,
    { password },
  );
  assert.equal(answer.status, 303);
  assert.equal(answer.headers.get("location"), returnTo);
}
