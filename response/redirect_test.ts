import assert from "node:assert/strict";
import { redirect } from "@fetchkit/toolkit/response/redirect";

Deno.test("redirect defaults to 302 with the Location header", () => {
  const response = redirect("https://example.com/a");
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("Location"), "https://example.com/a");
  assert.equal(response.body, null);
});

Deno.test("redirect keeps a relative location as given", () => {
  assert.equal(
    redirect("/login?returnTo=%2Fx").headers.get("Location"),
    "/login?returnTo=%2Fx",
  );
  assert.equal(redirect("../list").headers.get("Location"), "../list");
});

Deno.test("redirect accepts a URL object", () => {
  const response = redirect(new URL("https://example.com/a b"));
  assert.equal(response.headers.get("Location"), "https://example.com/a%20b");
});

Deno.test("redirect takes a status number", () => {
  for (const status of [301, 302, 303, 307, 308]) {
    assert.equal(redirect("/", status).status, status);
  }
});

Deno.test("redirect takes a ResponseInit with status and headers", () => {
  const response = redirect("/dashboard", {
    status: 303,
    headers: { "Set-Cookie": "a=1", Location: "/ignored" },
  });
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("Location"), "/dashboard");
  assert.equal(response.headers.get("Set-Cookie"), "a=1");
});

Deno.test("redirect defaults to 302 when a ResponseInit has no status", () => {
  const headers = new Headers({ "X-A": "1" });
  const response = redirect("/", { headers });
  assert.equal(response.status, 302);
  assert.equal(response.headers.get("X-A"), "1");
});

Deno.test("redirect rejects a status that is not a redirect", () => {
  assert.throws(() => redirect("/", 200), RangeError);
  assert.throws(() => redirect("/", { status: 304 }), /304/);
});

Deno.test("redirect percent-encodes non-ASCII characters only", () => {
  assert.equal(
    redirect("/café?q=ü%20").headers.get("Location"),
    "/caf%C3%A9?q=%C3%BC%20",
  );
});

Deno.test("redirect refuses a location with a line break", () => {
  assert.throws(() => redirect("/a\r\nSet-Cookie: x=1"), TypeError);
});

Deno.test("redirect() survives a lone surrogate in the location", () => {
  const response = redirect("/a\uD800b");
  assert.equal(response.headers.get("location"), "/a%EF%BF%BDb");
});
