import assert from "node:assert/strict";
import { DEFAULT_RETURN_TO, safeReturnTo } from "./return_to.ts";
import { Client, testApp } from "./_test_app.ts";

const UNSAFE = [
  "//evil.example",
  "//evil.example/path",
  "https://evil.example",
  "http:evil.example",
  "http:/evil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "/\t/evil.example",
  "/\n/evil.example",
  "/\r/evil.example",
  "javascript:alert(1)",
  "JaVaScRiPt:alert(1)",
  "data:text/html,<script>alert(1)</script>",
  "/\x00/evil.example",
  "/\x7f",
  " /dashboard",
  "/ /evil.example",
  "evil.example",
  "",
  "/%09/evil.example/\u2028",
];

Deno.test("safeReturnTo: anything that could leave the site falls back to /dashboard", () => {
  for (const value of UNSAFE) {
    assert.equal(safeReturnTo(value), DEFAULT_RETURN_TO, JSON.stringify(value));
  }
  assert.equal(safeReturnTo(null), DEFAULT_RETURN_TO);
  assert.equal(safeReturnTo(undefined), DEFAULT_RETURN_TO);
});

Deno.test("safeReturnTo: local paths are kept as given", () => {
  for (
    const value of [
      "/profile",
      "/profile?tab=1",
      "/a/b#c",
      "/%2F%2Fevil.example",
      "/admin/users",
    ]
  ) {
    assert.equal(safeReturnTo(value), value);
  }
});

Deno.test("login never redirects off-site, whatever returnTo says", async () => {
  const { app, close } = await testApp();
  await new Client(app).register("ada@example.com");
  for (const value of UNSAFE) {
    const client = new Client(app);
    const response = await client.login(
      "ada@example.com",
      "correct horse",
      `?returnTo=${encodeURIComponent(value)}`,
    );
    assert.equal(response.status, 303);
    assert.equal(
      response.headers.get("location"),
      "/dashboard",
      JSON.stringify(value),
    );
  }
  close();
});
