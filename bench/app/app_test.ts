// The two contenders of bench/app/ serve the same page and the same
// sign-in: a signed-in dashboard with the same text and markup (whitespace
// aside), a 303 with a session cookie for the right password, and no
// session for a wrong one.
//
//   deno test -A --unstable-kv bench/app/app_test.ts
import assert from "node:assert/strict";
import {
  CONTENDERS,
  formHeaders,
  origin,
  signIn,
  startContender,
} from "./_contenders.ts";

function normalized(page: string): string {
  return page.replace(/\s+/g, " ").replace(/ >/g, ">").replace(/> </g, "><")
    .trim();
}

Deno.test("bench/app: both contenders serve the same dashboard and sign-in", async () => {
  const pages: string[] = [];
  for (const name of CONTENDERS) {
    const server = await startContender(name);
    try {
      const cookie = await signIn(server.port, 3);
      const response = await fetch(`${origin(server.port)}/dashboard`, {
        headers: { cookie },
      });
      assert.equal(response.status, 200, name);
      pages.push(normalized(await response.text()));
      const wrong = await fetch(`${origin(server.port)}/auth/login`, {
        method: "POST",
        headers: formHeaders(server.port),
        body: "email=user3%40example.com&password=wrong-password",
        redirect: "manual",
      });
      await wrong.body?.cancel();
      assert.equal(wrong.status, 303, name);
      assert.notEqual(wrong.headers.get("location"), "/dashboard", name);
    } finally {
      await server.stop();
    }
  }
  assert.equal(pages[0], pages[1]);
});
