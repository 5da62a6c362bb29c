import assert from "node:assert/strict";
import {
  getCookieValues,
  isCookieName,
  MAX_COOKIE_VALUES,
  serializeCookie,
} from "./_cookie.ts";

Deno.test("getCookieValues finds every value of one name, in order", () => {
  const header = 'a=1; __session=x.y; b="q"; __session="z"; __sessionX=no';
  assert.deepEqual(getCookieValues(header, "__session"), ["x.y", "z"]);
  assert.deepEqual(getCookieValues(header, "b"), ["q"]);
  assert.deepEqual(getCookieValues(header, "c"), []);
  assert.deepEqual(getCookieValues(null, "a"), []);
  assert.deepEqual(getCookieValues("", "a"), []);
});

Deno.test("getCookieValues skips values outside RFC 6265 cookie-octets", () => {
  for (const bad of ["a b", "a,b", 'a"b', "a\\b", "é"]) {
    assert.deepEqual(getCookieValues(`s=${bad}`, "s"), [], bad);
  }
  assert.deepEqual(getCookieValues("s=ok; s=a b; s=ok2", "s"), ["ok", "ok2"]);
  assert.equal(getCookieValues("s=1;s=2;s=3;s=4;s=5;s=6", "s").length, 6);
});

Deno.test("getCookieValues reads up to 180 values of one name, as many as a browser keeps", () => {
  const header = Array.from({ length: 200 }, (_, i) => `s=${i}`).join("; ");
  const values = getCookieValues(header, "s");
  assert.equal(values.length, MAX_COOKIE_VALUES);
  assert.equal(MAX_COOKIE_VALUES, 180);
  assert.equal(values.at(-1), "179");
  assert.deepEqual(getCookieValues(header, "s", 2), ["0", "1"]);
});

Deno.test("serializeCookie writes the attributes in a fixed order", () => {
  assert.equal(
    serializeCookie("s", "v", {
      maxAge: 60.7,
      domain: "example.com",
      path: "/app",
      expires: new Date(0),
      httpOnly: true,
      secure: true,
      sameSite: "Lax",
      partitioned: true,
    }),
    "s=v; Max-Age=60; Domain=example.com; Path=/app; " +
      "Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax; Partitioned",
  );
  assert.equal(serializeCookie("s", "", {}), "s=");
});

Deno.test("serializeCookie refuses anything that could inject an attribute", () => {
  assert.throws(() => serializeCookie("a;b", "v", {}), TypeError);
  assert.throws(() => serializeCookie("s", "v; Domain=evil", {}), TypeError);
  assert.throws(
    () => serializeCookie("s", "v", { path: "/; Secure" }),
    TypeError,
  );
  assert.throws(() => serializeCookie("s", "v", { path: "/\n" }), TypeError);
  assert.throws(
    () => serializeCookie("s", "v", { domain: "a.com; x" }),
    TypeError,
  );
  assert.equal(isCookieName("__Host-id"), true);
  assert.equal(isCookieName("a b"), false);
  assert.equal(isCookieName(""), false);
});
