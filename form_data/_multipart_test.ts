import assert from "node:assert/strict";
import { parseFormData } from "./parse.ts";
import { FormDataParseError, MaxFieldsExceededError } from "./errors.ts";
import {
  BOUNDARY,
  concat,
  entriesOf,
  multipartBody,
  multipartRequest,
  rejection,
  splitAt,
} from "./_test_utils.ts";

const encoder = new TextEncoder();

// File content full of delimiter look-alikes: CRLF, dashes and a boundary
// prefix, so that every split point meets a possible partial delimiter.
const tricky = `line\r\n--${BOUNDARY.slice(0, 10)}\r\n-\r\n--${
  BOUNDARY.slice(0, -1)
}x\r`;
const parts = [
  { name: "title", value: "Hello" },
  { name: "file", filename: "a.txt", type: "text/plain", content: tricky },
  { name: "empty", value: "" },
  { name: "title", value: "again\r\n--" },
];
const expected = [
  ["title", "Hello"],
  ["file", { file: "a.txt", type: "text/plain", text: tricky }],
  ["empty", ""],
  ["title", "again\r\n--"],
];
const body = multipartBody(parts);

Deno.test("a body in one chunk parses", async () => {
  const form = await parseFormData(multipartRequest(body));
  assert.deepEqual(await entriesOf(form), expected);
});

Deno.test("every split point of a body across two chunks parses the same", async () => {
  for (let cut = 0; cut <= body.length; cut++) {
    const form = await parseFormData(multipartRequest(splitAt(body, cut)));
    assert.deepEqual(await entriesOf(form), expected, `cut at ${cut}`);
  }
});

Deno.test("every pair of split points (three chunks) parses the same", async () => {
  // Covers a delimiter spread over three chunks.
  for (let a = 0; a <= body.length; a += 3) {
    for (let b = a; b <= body.length; b += 2) {
      const form = await parseFormData(multipartRequest(splitAt(body, a, b)));
      assert.deepEqual(await entriesOf(form), expected, `cuts at ${a}, ${b}`);
    }
  }
});

Deno.test("a body delivered one byte at a time parses", async () => {
  const bytes = [...body].map((byte) => new Uint8Array([byte]));
  const form = await parseFormData(multipartRequest(bytes));
  assert.deepEqual(await entriesOf(form), expected);
});

Deno.test("binary file bytes come through unchanged", async () => {
  const content = new Uint8Array(70_000);
  for (let i = 0; i < content.length; i++) content[i] = (i * 7919) & 0xff;
  const bytes = multipartBody([{ name: "bin", filename: "b.bin", content }]);
  const form = await parseFormData(
    multipartRequest(splitAt(bytes, 1000, 1001, 40_000, 65_536)),
  );
  const file = form.get("bin") as File;
  assert.deepEqual(new Uint8Array(await file.arrayBuffer()), content);
});

Deno.test("a preamble, transport padding and an epilogue are ignored", async () => {
  const text = `preamble text\r\n--${BOUNDARY}  \t\r\n` +
    `Content-Disposition: form-data; name="a"\r\n\r\n1\r\n` +
    `--${BOUNDARY}--\r\nepilogue`;
  const form = await parseFormData(multipartRequest(encoder.encode(text)));
  assert.deepEqual(await entriesOf(form), [["a", "1"]]);
});

Deno.test("content type and header names match in any case", async () => {
  const text =
    `--abc\r\ncontent-DISPOSITION: Form-Data; NAME="a"\r\n\r\n1\r\n--abc--`;
  const form = await parseFormData(
    multipartRequest(
      encoder.encode(text),
      "abc",
      "Multipart/Form-Data; charset=utf-8; Boundary=abc",
    ),
  );
  assert.deepEqual(await entriesOf(form), [["a", "1"]]);
});

Deno.test("a quoted boundary parameter is unquoted", async () => {
  const text =
    `--abc\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--abc--`;
  const form = await parseFormData(
    multipartRequest(
      encoder.encode(text),
      "abc",
      'multipart/form-data; boundary="abc"',
    ),
  );
  assert.deepEqual(await entriesOf(form), [["a", "1"]]);
});

const malformed: [string, string, string][] = [
  ["no boundary line at all", "just some text", "no boundary line"],
  [
    "missing final boundary",
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1`,
    "ended before its final boundary",
  ],
  [
    "ends right after a boundary",
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}`,
    "ended before its final boundary",
  ],
  [
    "ends inside headers",
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"`,
    "ended before its final boundary",
  ],
  [
    "header line without a colon",
    `--${BOUNDARY}\r\nContent-Disposition form-data\r\n\r\n1\r\n--${BOUNDARY}--`,
    "has no name",
  ],
  [
    "no name",
    `--${BOUNDARY}\r\nContent-Disposition: form-data\r\n\r\n1\r\n--${BOUNDARY}--`,
    "has no name",
  ],
  [
    "not form-data",
    `--${BOUNDARY}\r\nContent-Disposition: attachment; name="a"\r\n\r\n1\r\n--${BOUNDARY}--`,
    "not form-data",
  ],
  [
    "junk after a boundary",
    `--${BOUNDARY}junk\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--`,
    "unexpected bytes",
  ],
];

for (const [label, text, message] of malformed) {
  Deno.test(`malformed body (${label}) is a 400 FormDataParseError`, async () => {
    const bytes = encoder.encode(text);
    for (const cut of [0, Math.floor(bytes.length / 2), bytes.length - 1]) {
      const error = await rejection(
        parseFormData(multipartRequest(splitAt(bytes, cut))),
      );
      assert.ok(error instanceof FormDataParseError, String(error));
      assert.equal(error.status, 400);
      assert.match(error.message, new RegExp(message));
    }
  });
}

Deno.test("a multipart content type without a boundary is a 400", async () => {
  const error = await rejection(
    parseFormData(multipartRequest(body, BOUNDARY, "multipart/form-data")),
  );
  assert.ok(error instanceof FormDataParseError);
  assert.equal(error.status, 400);
  assert.match(error.message, /no boundary/);
});

Deno.test("a multipart request without a body is a 400", async () => {
  const request = new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
  });
  const error = await rejection(parseFormData(request));
  assert.ok(error instanceof FormDataParseError);
  assert.equal(error.status, 400);
});

Deno.test("a body stream that errors midway is a 400 and names the part", async () => {
  const head = concat([
    encoder.encode(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="f"; filename="big.bin"\r\n\r\n`,
    ),
    new Uint8Array(1000),
  ]);
  let sent = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) controller.error(new Error("connection reset"));
      else controller.enqueue(head);
      sent = true;
    },
  });
  const request = new Request("http://localhost/", {
    method: "POST",
    headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
    body: stream,
  });
  const error = await rejection(parseFormData(request));
  assert.ok(error instanceof FormDataParseError);
  assert.equal(error.status, 400);
  assert.equal(error.fileName, "big.bin");
  assert.equal((error.cause as Error).message, "connection reset");
});

Deno.test("a part with a missing or empty Content-Disposition is skipped, the rest kept", async () => {
  const text = `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nskipped\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition:\r\n\r\nskipped too\r\n` +
    `--${BOUNDARY}\r\n\r\nno headers at all\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n` +
    `--${BOUNDARY}--\r\n`;
  const bytes = encoder.encode(text);
  for (const size of [1, 7, bytes.length]) {
    const chunks: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += size) {
      chunks.push(bytes.slice(i, i + size));
    }
    const form = await parseFormData(multipartRequest(chunks));
    assert.deepEqual(await entriesOf(form), [["a", "1"]]);
  }
});

Deno.test("skipped parts count against maxFields", async () => {
  const skipped = `--${BOUNDARY}\r\nContent-Type: text/plain\r\n\r\nx\r\n`;
  const text = skipped.repeat(5) + `--${BOUNDARY}--\r\n`;
  const error = await rejection(
    parseFormData(multipartRequest(encoder.encode(text)), { maxFields: 4 }),
  );
  assert.ok(error instanceof MaxFieldsExceededError, String(error));
  assert.equal(error.status, 413);
  const form = await parseFormData(multipartRequest(encoder.encode(text)), {
    maxFields: 5,
  });
  assert.deepEqual(await entriesOf(form), []);
});

Deno.test("an obsolete folded Content-Type is joined without a leading space", async () => {
  const text = `--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="f"; filename="a.txt"\r\n` +
    `Content-Type:\r\n text/plain; charset=utf8\r\n\r\nhi\r\n` +
    `--${BOUNDARY}--\r\n`;
  const form = await parseFormData(multipartRequest(encoder.encode(text)));
  assert.deepEqual(await entriesOf(form), [
    ["f", { file: "a.txt", type: "text/plain; charset=utf8", text: "hi" }],
  ]);
});
