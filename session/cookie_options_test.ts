import assert from "node:assert/strict";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
Deno.test("cookie options: maxAge must be a whole number of seconds (Max-Age is an integer)", () => {
  for (const maxAge of [0.5, 1.5, 0, -1]) {
    assert.throws(
      () =>
        createCookieSessionStorage({
          cookie: { secrets: ["s3cret".repeat(6)], maxAge },
        }),
      {
        name: "TypeError",
        message: /maxAge must be a whole number of seconds/,
      },
    );
  }
});
