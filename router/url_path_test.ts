import assert from "node:assert/strict";
import { normalizeEscapes, pathnameOf, pathStart } from "./url_path.ts";

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
