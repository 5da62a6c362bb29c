// The cookie jar against RFC 6265's rules, with cases ported from
// tough-cookie's test suite where they map (lib/__tests__/date.spec.ts,
// domainMatch.spec.ts, data/pathMatchCases.ts, data/defaultPathCases.ts,
// cookieJar.spec.ts "retrieving cookies" and "setCookie"). Where
// tough-cookie is looser than browsers (a Secure cookie set over http:),
// the case follows RFC 6265bis and says so.
import assert from "node:assert/strict";
import { parseCookieDate } from "./_date.ts";
import {
  CookieJar,
  defaultPath,
  domainMatch,
  pathMatch,
} from "./cookie_jar.ts";

// tough-cookie date.spec.ts: which strings parse.
const DATES: Record<string, boolean> = {
  "Wed, 09 Jun 2021 10:18:14 GMT": true,
  "Wed, 09 JUN 2021 10:18:14 GMT": true,
  "Wed, 09 Jun 2021 22:18:14 GMT": true,
  "Tue, 18 Oct 2011 07:42:42.123 GMT": true,
  "18 Oct 2011 07:42:42 GMT": true,
  "8 Oct 2011 7:42:42 GMT": true,
  "8 Oct 2011 7:2:42 GMT": true,
  "8 Oct 2011 7:2:2 GMT": true,
  "Oct 18 2011 07:42:42 GMT": true,
  "Tue Oct 18 2011 07:05:03 GMT+0000 (GMT)": true,
  "09 Jun 2021 10:18:14 GMT": true,
  "99 Jix 3038 48:86:72 ZMT": false,
  "01 Jan 1970 00:00:00 GMT": true,
  "01 Jan 1600 00:00:00 GMT": false,
  "01 Jan 1601 00:00:00 GMT": true,
  "10 Feb 81 13:00:00 GMT": true,
  "Thu, 17-Apr-2014 02:12:29 GMT": true,
  "Thu, 17-Apr-2014 02:12:29 UTC": true,
  "Wedxxx, 09 Jun 2021 10:18:14 GMT": true,
  "Wed, 09e9 Jun 2021 10:18:14 GMT": true,
  "Wed, 09 Junxxx 2021 10:18:14 GMT": true,
  "Wed, 09 Jun 2021e9 10:18:14 GMT": true,
  "Wed, 09 Jun 2021 10e9:18:14 GMT": false,
  "Wed, 09 Jun 2021 10:18e9:14 GMT": false,
  "Wed, 09 Jun 2021 10:18:14e9 GMT": true,
  "Thu, 01 Jan 1970 000:00:01 GMT": false,
  "Thu, 01 Jan 1970 00:000:01 GMT": false,
  "Thu, 01 Jan 1970 00:00:010 GMT": false,
  "Wed, 09 Jun 2021 1a:33:44 GMT": false,
  "Wed, 09 Jun 2021 a1:33:44 GMT": false,
  "Wed, 09 Jun 2021 11:f3:44 GMT": false,
  "Wed, 09 Jun 2021 11:3f:44 GMT": false,
  "Wed, 09 Jun 2021 11:33:e4 GMT": false,
  "Wed, 09 Jun 2021 11:33:4e GMT": true,
  "Wed, 09 Jun 2021 -1:33:44 GMT": true,
  "Wed, 09 Jun 2021 11:-3:44 GMT": false,
  "Wed, 09 Jun 2021 11:33:-4 GMT": false,
  "": false,
};

// tough-cookie date.spec.ts: pairs that parse to the same instant.
const SAME_DATES: [string, string][] = [
  ["Tue, 18 Oct 2011 07:42:42.123 GMT", "Tue, 18 Oct 2011 07:42:42 GMT"],
  ["8 Oct 2011 7:32:42 GMT", "8 Oct 2011 07:32:42 GMT"],
  ["8 Oct 2011 7:2:42 GMT", "8 Oct 2011 07:02:42 GMT"],
  ["8 Oct 2011 7:2:2 GMT", "8 Oct 2011 07:02:02 GMT"],
  ["Oct 18 2011 07:42:42 GMT", "18 Oct 2011 07:42:42 GMT"],
  ["Tue Oct 18 2011 07:05:03 GMT+0000 (GMT)", "Tue, 18 Oct 2011 07:05:03 GMT"],
  ["10 Feb 81 13:00:00 GMT", "10 Feb 1981 13:00:00 GMT"],
  ["10 Feb 17 13:00:00 GMT", "10 Feb 2017 13:00:00 GMT"],
  ["Thu, 17-Apr-2014 02:12:29 GMT", "Thu, 17 Apr 2014 02:12:29 GMT"],
  ["Thu, 17-Apr-2014 02:12:29 UTC", "Thu, 17 Apr 2014 02:12:29 GMT"],
  ["09 Jun 2021 10:18:14 GMT", "Wed, 09 Jun 2021 10:18:14 GMT"],
  ["Wed, 09 Jun 2021 11:33:4e GMT", "Wed, 09 Jun 2021 11:33:04 GMT"],
  ["Wed, 09 Jun 2021 -1:33:44 GMT", "Wed, 09 Jun 2021 01:33:44 GMT"],
  ["Wed, 09 Junxxx 2021 10:18:14 GMT", "Wed, 09 Jun 2021 10:18:14 GMT"],
  ["09 November 2021 10:18:14 GMT", "09 Nov 2021 10:18:14 GMT"],
  ["Wed, 09 jUN 2021 10:18:14 GMT", "Wed, 09 Jun 2021 10:18:14 GMT"],
];

Deno.test("cookie dates: RFC 6265 5.1.1, tough-cookie's cases", () => {
  for (const [text, valid] of Object.entries(DATES)) {
    assert.equal(
      parseCookieDate(text) instanceof Date,
      valid,
      `${JSON.stringify(text)} should ${valid ? "" : "not "}parse`,
    );
  }
  for (const [a, b] of SAME_DATES) {
    assert.equal(parseCookieDate(a)?.getTime(), parseCookieDate(b)?.getTime());
    assert.ok(parseCookieDate(a), a);
  }
  assert.equal(
    parseCookieDate("Wed, 09 Jun 2021 10:18:14 GMT")?.toISOString(),
    "2021-06-09T10:18:14.000Z",
  );
  // A day the month does not have fails, as the RFC says.
  assert.equal(parseCookieDate("31 Apr 2021 10:00:00 GMT"), undefined);
});

Deno.test("cookie dates: long garbage does not take long (tough-cookie's ReDoS cases)", () => {
  const xs = "x".repeat(65535);
  const start = performance.now();
  assert.equal(
    parseCookieDate(`Wed, 09 Jun 2021 10${xs}:18:14 GMT`),
    undefined,
  );
  assert.equal(
    parseCookieDate(`Wed, 09 Jun 2021 10:18${xs}:14 GMT`),
    undefined,
  );
  assert.equal(
    parseCookieDate(`Wed, 09 Jun 2021 10:18:14${xs} GMT`)?.toISOString(),
    "2021-06-09T10:18:14.000Z",
  );
  // Linear: a generous bound, only to catch a backtracking blow-up.
  assert.ok(performance.now() - start < 2000);
});

Deno.test("domainMatch: tough-cookie's cases that map (host names and IP addresses)", () => {
  const cases: [string, string, boolean][] = [
    ["example.com", "example.com", true],
    ["eXaMpLe.cOm", "ExAmPlE.CoM", true],
    ["no.ca", "yes.ca", false],
    ["wwwexample.com", "example.com", false],
    ["www.subdom.example.com", "example.com", true],
    ["www.subdom.example.com", "subdom.example.com", true],
    ["example.com", "example.com.", false],
    ["www.example.com", "example.com", true],
    ["www.example.com.org", "example.com", false],
    ["example.com", "www.example.com.org", false],
    ["example.com", "www.example.com", false],
    ["aaa.com", "aaaa.com", false],
    ["aaaa.com", "aaa.com", false],
    ["www.aaaa.com", "aaa.com", false],
    ["www.aaa.com", "aaa.com", true],
    ["www.aexample.com", "example.com", false],
    ["computer.com", "com", true],
    ["192.168.0.1", "168.0.1", false],
    ["::ffff:192.168.0.1", "168.0.1", false],
    ["::1", "::1", true],
    ["2008::1", "::1", false],
    ["192.168.0.1", "68.0.1", false],
    ["10.1.2.3", "210.1.2.3", false],
    ["1.example.com", "example.com", true],
    ["192.168.0.1.example.com", "example.com", true],
    ["com", "net", false],
    ["com", "com", true],
  ];
  for (const [host, domain, expected] of cases) {
    assert.equal(domainMatch(host, domain), expected, `${host} ~ ${domain}`);
  }
});

Deno.test("pathMatch and defaultPath: tough-cookie's cases", () => {
  const paths: [string, string, boolean][] = [
    ["/", "/", true],
    ["/dir", "/", true],
    ["/", "/dir", false],
    ["/dir/", "/dir/", true],
    ["/dir/file", "/dir/", true],
    ["/dir/file", "/dir", true],
    ["/directory", "/dir", false],
  ];
  for (const [request, cookie, expected] of paths) {
    assert.equal(
      pathMatch(request, cookie),
      expected,
      `${request} ~ ${cookie}`,
    );
  }
  const defaults: [string, string][] = [
    ["", "/"],
    ["/", "/"],
    ["/file", "/"],
    ["/dir/file", "/dir"],
    ["noslash", "/"],
  ];
  for (const [input, expected] of defaults) {
    assert.equal(defaultPath(input), expected, input);
  }
});

/** A jar on a clock the test moves. */
function jarAt(start = Date.UTC(2026, 0, 1)) {
  const clock = { now: start };
  return { jar: new CookieJar({ now: () => clock.now }), clock };
}

Deno.test("jar: tough-cookie's 'retrieving cookies' set, as a browser keeps it", () => {
  const { jar, clock } = jarAt();
  const url = "http://example.com/index.html";
  const tick = () => clock.now += 1000;
  jar.setCookie("a=1; Domain=example.com; Path=/", url);
  tick();
  jar.setCookie("b=2; Domain=example.com; Path=/; HttpOnly", url);
  tick();
  // tough-cookie stores this one; browsers (RFC 6265bis) refuse a
  // Secure cookie set over http:.
  assert.equal(
    jar.setCookie("c=3; Domain=example.com; Path=/; Secure", url),
    undefined,
  );
  jar.setCookie(
    "c=3; Domain=example.com; Path=/; Secure",
    "https://example.com/",
  );
  tick();
  jar.setCookie("d=4; Domain=example.com; Path=/foo", url);
  tick();
  jar.setCookie("e=5", url);
  tick();
  jar.setCookie("f=6; Domain=nodejs.org; Path=/", "http://nodejs.org");
  tick();
  jar.setCookie(
    "g=7; Domain=example.com; Path=/; Expires=Tue, 18 Oct 2011 00:00:00 GMT",
    url,
  );
  tick();
  jar.setCookie("h=8; Domain=example.com; Path=/; Max-Age=1", url);
  clock.now += 2000; // h expires

  const names = (at: string) => jar.cookies(at).map((c) => c.name);
  assert.deepEqual(names("http://nodejs.org"), ["f"]);
  assert.deepEqual(names("https://example.com"), ["a", "b", "c", "e"]);
  assert.deepEqual(
    names("http://example.com"),
    ["a", "b", "e"],
    "no Secure over http:",
  );
  // Longest path first, then oldest.
  assert.deepEqual(names("http://example.com/foo/bar"), ["d", "a", "b", "e"]);
  // e is host-only: not for a subdomain; the Domain cookies are.
  assert.deepEqual(names("http://www.example.com/foo"), ["d", "a", "b"]);
  assert.equal(jar.cookieHeader("http://example.com/"), "a=1; b=2; e=5");
  const b = jar.cookies("http://example.com/").find((c) => c.name === "b")!;
  assert.equal(b.httpOnly, true, "HttpOnly is kept on the stored cookie");
});

Deno.test("jar: Domain the host is not within is ignored; a parent domain is allowed", () => {
  const { jar } = jarAt();
  assert.equal(
    jar.setCookie("a=b; Domain=fooxample.com; Path=/", "http://example.com/"),
    undefined,
  );
  assert.equal(
    jar.setCookie("a=b; Domain=www.example.com; Path=/", "http://example.com/"),
    undefined,
  );
  const parent = jar.setCookie(
    "a=b; Domain=.Example.com; Path=/",
    "http://www.app.example.com/index.html",
  );
  assert.equal(parent?.domain, "example.com");
  assert.equal(parent?.hostOnly, false);
  // An IP address is only its own domain.
  assert.equal(
    jar.setCookie("x=1; Domain=0.0.1", "http://127.0.0.1/"),
    undefined,
  );
  assert.ok(jar.setCookie("x=1; Domain=127.0.0.1", "http://127.0.0.1/"));
});

Deno.test("jar: without Path, the directory of the request path (a session cookie)", () => {
  const { jar } = jarAt();
  const cookie = jar.setCookie(
    "SID=31d4d96e407aad42",
    "http://www.example.com/dir/index.html",
  );
  assert.equal(cookie?.path, "/dir");
  assert.equal(cookie?.hostOnly, true);
  assert.equal(cookie?.expires, undefined);
  assert.equal(jar.cookieHeader("http://www.example.com/"), "");
  assert.equal(
    jar.cookieHeader("http://www.example.com/dir/x"),
    "SID=31d4d96e407aad42",
  );
  // A Path that does not start with "/" is the default too.
  assert.equal(jar.setCookie("p=1; Path=rel", "http://h.test/a/b")?.path, "/a");
});

Deno.test("jar: Max-Age wins over Expires, in either order; 0 and negative delete", () => {
  const { jar, clock } = jarAt();
  const url = "http://example.com/";
  jar.setCookie("a=1; Max-Age=10; Expires=Tue, 18 Oct 2011 00:00:00 GMT", url);
  jar.setCookie("b=1; Expires=Tue, 18 Oct 2011 00:00:00 GMT; Max-Age=10", url);
  assert.deepEqual(jar.cookies(url).map((c) => c.name), ["a", "b"]);
  clock.now += 11_000;
  assert.deepEqual(jar.cookies(url), []);

  jar.setCookie("s=1", url);
  jar.setCookie("s=1; Max-Age=0", url);
  assert.equal(jar.get("s"), undefined, "Max-Age=0 removes it");
  jar.setCookie("s=1", url);
  jar.setCookie("s=1; Max-Age=-5", url);
  assert.equal(jar.get("s"), undefined, "a negative Max-Age removes it");
  // An unparseable Max-Age is ignored (the cookie stays a session cookie).
  assert.equal(jar.setCookie("m=1; Max-Age=1e3", url)?.expires, undefined);
  // An Expires in the future keeps it until then.
  const future = new Date(clock.now + 60_000).toUTCString();
  jar.setCookie(`e=1; Expires=${future}`, url);
  assert.equal(jar.get("e", url), "1");
  clock.now += 61_000;
  assert.equal(jar.get("e", url), undefined);
});

Deno.test("jar: the same name, domain and path replaces, keeping its place in line", () => {
  const { jar, clock } = jarAt();
  const url = "http://example.com/";
  jar.setCookie("a=1", url);
  clock.now += 1000;
  jar.setCookie("b=1", url);
  clock.now += 1000;
  jar.setCookie("a=2", url);
  assert.equal(jar.cookieHeader(url), "a=2; b=1");
  // Another path is another cookie.
  jar.setCookie("a=3; Path=/x", url);
  assert.equal(jar.cookieHeader("http://example.com/x"), "a=3; a=2; b=1");
});

Deno.test("jar: Secure cookies only from and to https:, and http: cannot shadow one (RFC 6265bis)", () => {
  const { jar } = jarAt();
  jar.setCookie("sid=secret; Secure; Path=/", "https://app.test/");
  assert.equal(jar.cookieHeader("https://app.test/"), "sid=secret");
  assert.equal(jar.cookieHeader("http://app.test/"), "");
  // A plain-http response cannot overwrite it.
  assert.equal(
    jar.setCookie("sid=evil; Path=/", "http://app.test/"),
    undefined,
  );
  assert.equal(jar.get("sid"), "secret");
});

Deno.test("jar: __Secure- and __Host- prefixes hold what they promise", () => {
  const { jar } = jarAt();
  const https = "https://app.test/login";
  assert.equal(jar.setCookie("__Secure-a=1", https), undefined);
  assert.ok(jar.setCookie("__Secure-a=1; Secure", https));
  assert.equal(
    jar.setCookie("__Host-b=1; Secure", https),
    undefined,
    "Path must be /",
  );
  assert.equal(
    jar.setCookie("__Host-b=1; Secure; Path=/; Domain=app.test", https),
    undefined,
    "no Domain",
  );
  assert.ok(jar.setCookie("__Host-b=1; Secure; Path=/", https));
  assert.equal(
    jar.setCookie("__Host-c=1; Secure; Path=/", "http://app.test/"),
    undefined,
  );
});

Deno.test("jar: lenient parsing as browsers do; malformed pairs are ignored", () => {
  const { jar } = jarAt();
  const url = "http://example.com/";
  assert.equal(jar.setCookie("novalue", url), undefined, "no =");
  assert.equal(jar.setCookie("=b", url), undefined, "empty name");
  assert.equal(jar.setCookie("a=b\nc", url), undefined, "control character");
  const spaced = jar.setCookie("  name  =  v a l  ; path = / ;  HTTPONLY", url);
  assert.equal(spaced?.name, "name");
  assert.equal(spaced?.value, "v a l");
  assert.equal(spaced?.httpOnly, true);
  assert.equal(jar.setCookie('q="quoted"', url)?.value, '"quoted"');
  assert.equal(jar.setCookie("e=", url)?.value, "");
  // The last of a repeated attribute wins.
  assert.equal(jar.setCookie("p=1; Path=/a; Path=/b", url)?.path, "/b");
  assert.equal(jar.setCookie("s=1; SameSite=lax", url)?.sameSite, "Lax");
  assert.equal(jar.setCookie("t=1; SameSite=bogus", url)?.sameSite, undefined);
  // Over the size limits: a name and value of more than 4096 bytes.
  assert.equal(jar.setCookie(`big=${"x".repeat(4094)}`, url), undefined);
  // An attribute value over 1024 bytes is ignored, the cookie kept.
  assert.equal(
    jar.setCookie(`long=1; Path=/${"p".repeat(1024)}`, url)?.path,
    "/",
  );
});

Deno.test("jar: storeResponse takes every Set-Cookie; clear() forgets", () => {
  const { jar } = jarAt();
  const headers = new Headers();
  headers.append("Set-Cookie", "a=1; Path=/");
  headers.append(
    "Set-Cookie",
    "b=2; Path=/; Expires=Wed, 09 Jun 2100 10:18:14 GMT",
  );
  jar.storeResponse(new Response(null, { headers }), "http://example.com/");
  assert.equal(jar.cookieHeader("http://example.com/"), "a=1; b=2");
  jar.clear("a");
  assert.equal(jar.cookieHeader("http://example.com/"), "b=2");
  jar.clear();
  assert.deepEqual(jar.cookies(), []);
});

Deno.test("CookieJar: a Domain that is a public suffix is refused, or kept host-only on that very host", () => {
  const jar = new CookieJar();
  assert.equal(
    jar.setCookie("a=1; Domain=com", "https://shop.example.com/"),
    undefined,
  );
  assert.equal(
    jar.setCookie("b=1; Domain=.co.uk", "https://bank.co.uk/"),
    undefined,
  );
  assert.equal(
    jar.setCookie("c=1; Domain=github.io", "https://me.github.io/"),
    undefined,
  );
  assert.equal(
    jar.setCookie("d=1; Domain=COM.au", "https://x.com.au/"),
    undefined,
  );
  assert.equal(jar.cookieHeader("https://other.com/"), "");
  assert.equal(jar.cookieHeader("https://victim.co.uk/"), "");
  assert.equal(jar.cookieHeader("https://you.github.io/"), "");
  // RFC 6265 5.3 step 5: the suffix itself may set a host-only cookie.
  const own = jar.setCookie("e=1; Domain=co.uk", "https://co.uk/");
  assert.equal(own?.hostOnly, true);
  assert.equal(jar.cookieHeader("https://sub.co.uk/"), "");
  assert.equal(jar.cookieHeader("https://co.uk/"), "e=1");
  // A registrable domain under a suffix is still fine.
  jar.setCookie("f=1; Domain=example.co.uk", "https://www.example.co.uk/");
  assert.equal(jar.cookieHeader("https://shop.example.co.uk/"), "f=1");
});
