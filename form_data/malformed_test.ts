// Malformed bodies get a 400 that says what is wrong, never a 500: bad
// percent-encoding in urlencoded bodies, and obsolete folded header lines
// in multipart ones.

import assert from "node:assert/strict";
import {
  formData,
  FormDataParseError,
  parseFormData,
} from "@fetchkit/toolkit/form-data-middleware";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  BOUNDARY,
  entriesOf,
  multipartRequest,
  rejection,
  streamOf,
} from "./_test_utils.ts";

const encoder = new TextEncoder();
const URLENCODED = "application/x-www-form-urlencoded";

/** Requests with `body` by each read path: whole (declared) and streamed. */
function urlencodedRequests(body: string): Request[] {
  const bytes = encoder.encode(body);
  return [
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": URLENCODED },
      body: bytes,
    }),
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": URLENCODED },
      body: streamOf([bytes.slice(0, 3), bytes.slice(3)]),
    }),
  ];
}

Deno.test("a urlencoded body of a million % signs is a 400 naming the problem", async () => {
  const router = createRouter({ middleware: [formData()] });
  router.post("/", () => new Response("ok"));
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      headers: { "content-type": URLENCODED },
      body: "%".repeat(1_000_000),
    }),
  );
  assert.equal(response.status, 400);
  const text = await response.text();
  assert.match(text, /^Malformed percent-encoding in a field name "%{40}"/);
  assert.match(text, /\(first 40 of 1000000 bytes\)/);
  assert.match(text, /"%" at byte 0 is not followed by two hexadecimal digits/);
  assert.ok(text.length < 300, "the message quotes a bounded part of the name");
});

Deno.test("malformed percent-encoding in a value names the field and the byte", async () => {
  const cases: [string, string, number][] = [
    ["email=a%zz", "email", 7],
    ["a=1&email=50%", "email", 12],
    ["a=1&email=%4", "email", 10],
    ["a=%41&b=x%g1&c=%%", "b", 9],
    ["na%C3%AFve=%", "naïve", 11],
  ];
  for (const [body, field, at] of cases) {
    for (const request of urlencodedRequests(body)) {
      const error = await rejection(parseFormData(request));
      assert.ok(error instanceof FormDataParseError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.fieldName, field, body);
      assert.equal(
        error.message,
        `Malformed percent-encoding in the value of field ${
          JSON.stringify(field)
        }: "%" at byte ${at} is not followed by two hexadecimal digits ` +
          `(a literal "%" is sent as "%25")`,
      );
    }
  }
});

Deno.test("malformed percent-encoding in a name quotes the name as sent", async () => {
  for (const body of ["a=1&b%=2", "a=1&b%"]) {
    for (const request of urlencodedRequests(body)) {
      const error = await rejection(parseFormData(request));
      assert.ok(error instanceof FormDataParseError, String(error));
      assert.equal(error.status, 400);
      assert.equal(error.fieldName, undefined);
      assert.match(
        error.message,
        /^Malformed percent-encoding in a field name "b%": "%" at byte 5 /,
      );
    }
  }
});

Deno.test("raw non-ASCII bytes take the same check", async () => {
  // Bytes above 0x7F take the byte-level decoder; the check is the same.
  const bytes = new Uint8Array([
    ...encoder.encode("a="),
    0xc3,
    0xa9,
    ...encoder.encode("%x"),
  ]);
  const error = await rejection(
    parseFormData(
      new Request("http://localhost/", {
        method: "POST",
        headers: { "content-type": URLENCODED },
        body: bytes,
      }),
    ),
  );
  assert.ok(error instanceof FormDataParseError, String(error));
  assert.equal(error.fieldName, "a");
  assert.match(error.message, /at byte 4 /);
});

Deno.test("well-formed escapes, + and %25 still decode", async () => {
  for (const request of urlencodedRequests("a=100%25&b=%41+%e2%82%ac&%3D=x")) {
    assert.deepEqual(await entriesOf(await parseFormData(request)), [
      ["a", "100%"],
      ["b", "A €"],
      ["=", "x"],
    ]);
  }
});

// Obsolete line folding (a header line starting with a space or tab
// continues the previous one). RFC 9112 §5.2 lets a recipient either refuse
// it or replace each fold with a space; busboy, whose test vector
// "Folded header value" we pass, joins the lines, and so do we.

function multipartText(head: string, content = "hi"): Uint8Array {
  return encoder.encode(
    `--${BOUNDARY}\r\n${head}\r\n\r\n${content}\r\n--${BOUNDARY}--\r\n`,
  );
}

Deno.test("a folded Content-Disposition is joined onto its header with one space", async () => {
  const form = await parseFormData(
    multipartRequest(
      multipartText(
        `Content-Disposition: form-data;\r\n name="f";\r\n\tfilename="a.txt"\r\n` +
          `Content-Type: text/plain`,
      ),
    ),
  );
  assert.deepEqual(await entriesOf(form), [
    ["f", { file: "a.txt", type: "text/plain", text: "hi" }],
  ]);
});

Deno.test("a folded line after a header we do not read is dropped with it", async () => {
  const form = await parseFormData(
    multipartRequest(
      multipartText(
        `Content-Disposition: form-data; name="f"\r\n` +
          `X-Other: a\r\n name="g"`,
      ),
    ),
  );
  assert.deepEqual(await entriesOf(form), [["f", "hi"]]);
});

Deno.test("a folded line before any header continues nothing and is dropped", async () => {
  const form = await parseFormData(
    multipartRequest(
      multipartText(` name="g"\r\nContent-Disposition: form-data; name="f"`),
    ),
  );
  assert.deepEqual(await entriesOf(form), [["f", "hi"]]);
});
