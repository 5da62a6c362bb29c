import assert from "node:assert/strict";
import {
  normalizeEscapes,
  partsAsSent,
  pathnameOf,
  pathStart,
  routePathOf,
} from "./url_path.ts";

const URLS = [
  "http://localhost/",
  "http://localhost",
  "https://example.com",
  "https://example.com/a/b?x=1#frag",
  "http://127.0.0.1:8000/repos/deno/std/stargazers",
  "http://[::1]:8000/v6/path?q",
  "http://localhost/a?b/c",
  "http://localhost/a#b/c",
  "http://localhost?only=query",
  "http://localhost#only-fragment",
  "http://user:pass@host/secret/path",
  "http://user@host",
  "https://host/@at-in-path",
  "https://host/a?mail=x@y#z@w",
  "http://localhost:8000/a/b/?",
  "http://localhost/%7Euser/%2F/caf%C3%A9",
  "file:///etc/passwd",
  "ws://localhost/socket",
  "data:text/plain,hello",
  "httpx://weird/path",
  "http:/one-slash",
];

Deno.test("pathnameOf agrees with URL.pathname for every shape of URL", () => {
  for (const input of URLS) {
    // A Request serializes its URL as Deno.serve's requests do.
    let url: string;
    try {
      url = new Request(input).url;
    } catch {
      url = input;
    }
    assert.equal(pathnameOf(url), new URL(url).pathname, url);
  }
});

Deno.test("pathStart refuses credentials and non-http schemes, so callers parse", () => {
  assert.equal(pathStart("http://user:pass@host/p"), -1);
  assert.equal(pathStart("http://user@host"), -1);
  assert.equal(pathStart("file:///etc"), -1);
  assert.equal(pathStart("httpx://h/p"), -1);
  assert.equal(pathStart("http:/one-slash"), -1);
  assert.equal(pathStart("http://h/p@q"), 8); // an @ in the path is fine
  assert.equal(pathStart("http://h/p?to=a@b"), 8); // and in the query
  assert.equal(pathStart("http://u@h/p@q"), -1); // one in each
  assert.equal(pathStart("https://h"), 9); // no path: its end
});

Deno.test("normalizeEscapes decodes letters, digits and _ only", () => {
  // ~ stays escaped (href() escapes it); reserved characters stay as sent.
  assert.equal(normalizeEscapes("/%7Euser/%41%5f%2F%25"), "/%7Euser/A_%2F%25");
  const same = "/plain/path";
  assert.equal(normalizeEscapes(same), same);
});

// Deno.serve builds request.url from the Host header and the target as
// sent (checked on Deno 2.9: "Host: a?x" gives "http://a?x/admin"), so
// these URLs reach the router unparsed.
const RAW_URLS = [
  "http://a?x/admin", // URL: host "a", path "/", query "?x/admin"
  "http://a#x/admin",
  "http://a\\x/admin", // URL: host "a", path "/x/admin"
  "http://u:p@h/x",
  "http://a/b@c/x",
  "http://x/a#b/c",
  "http://x/a?b#c",
  "http://x/%61b%2Fc",
];

Deno.test("pathnameOf and routePathOf read raw URLs as URL.pathname does", () => {
  for (const url of RAW_URLS) {
    const expected = new URL(url).pathname;
    assert.equal(pathnameOf(url), expected, url);
    assert.equal(routePathOf(url), normalizeEscapes(expected), url);
  }
});

Deno.test("a backslash in the path: routed as URL reads it, logged as sent", () => {
  for (const url of ["http://x/a\\b", "http://x/a\\b?c\\d"]) {
    assert.equal(routePathOf(url), "/a/b", url);
    assert.equal(pathnameOf(url), "/a\\b", url);
  }
  assert.equal(pathnameOf("http://x/a?b\\c"), "/a"); // in the query
});

Deno.test("pathnameOf and routePathOf agree with URL.pathname on random raw URLs", () => {
  // Characters URL keeps as they are in a path, plus the ones that change
  // how it reads the URL. Dot segments are left out: URL resolves them
  // and the router does not (docs/guide.md, "Routing").
  const hostChars = "ab1:.-?#\\@";
  const pathChars = "ab/%2F?#\\@:;=&+$,!~*'()_";
  let seed = 7;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 16) % n;
  };
  const pick = (chars: string, length: number) =>
    Array.from({ length }, () => chars[random(chars.length)]).join("");
  let compared = 0;
  for (let n = 0; n < 5000; n++) {
    const url = `http${random(2) ? "s" : ""}://h${pick(hostChars, random(4))}` +
      `/${pick(pathChars, random(12))}`;
    let expected: string;
    try {
      expected = new URL(url).pathname;
    } catch {
      continue; // URL refuses the host ("a:b:c"): the router cuts the path
    }
    const path = url.slice(url.indexOf("/", 8));
    if (!path.includes("\\") || /[?#]/.test(path.split("\\")[0])) {
      assert.equal(pathnameOf(url), expected, url);
    }
    assert.equal(routePathOf(url), normalizeEscapes(expected), url);
    compared++;
  }
  assert.ok(compared > 4000, `only ${compared} URLs compared`);
});

Deno.test("pathnameOf and routePathOf agree with URL.pathname on random raw URLs, short and long", () => {
  // Paths of many lengths, with the characters that change how URL reads
  // it anywhere in them (a faster cut for short URLs was tried here).
  const pathChars = "ab/%2F?#\\@:;=&";
  let seed = 11;
  const random = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return (seed >>> 16) % n;
  };
  let compared = 0;
  for (const length of [1, 60, 110, 119, 120, 121, 122, 130, 200, 400]) {
    for (let n = 0; n < 300; n++) {
      let tail = "";
      for (let k = 0; k < 6; k++) tail += pathChars[random(pathChars.length)];
      const pad = "p".repeat(length);
      const host = ["h", "h:8000", "h?x", "h#x", "h\\x"][random(5)];
      const cut = random(length + 1);
      const url = `http://${host}/${pad.slice(0, cut)}${tail}${pad.slice(cut)}`;
      let expected: string;
      try {
        expected = new URL(url).pathname;
      } catch {
        continue;
      }
      const path = url.slice(url.indexOf("/", 7));
      if (!path.includes("\\") || /[?#]/.test(path.split("\\")[0])) {
        assert.equal(pathnameOf(url), expected, url);
      }
      assert.equal(routePathOf(url), normalizeEscapes(expected), url);
      compared++;
    }
  }
  assert.ok(compared > 2500, `only ${compared} URLs compared`);
});

Deno.test("partsAsSent cuts what URL refuses: no credentials, a lone ? is no search", () => {
  assert.deepEqual(partsAsSent("http://u:p@a b?x/admin?k=v#f?g"), {
    host: "a b?x",
    pathname: "/admin",
    search: "?k=v",
  });
  assert.deepEqual(partsAsSent("http://a b/x?"), {
    host: "a b",
    pathname: "/x",
    search: "",
  });
  assert.deepEqual(partsAsSent("http://a b"), {
    host: "a b",
    pathname: "/",
    search: "",
  });
});
