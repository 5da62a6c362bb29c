// What `data` may be: strings, html, JSON; never silently `{}`. Portable.
import assert from "node:assert/strict";
import {
  createEventStreamResponse,
  type ServerSentEvent,
} from "@fetchkit/toolkit/response/event-stream";
import { html } from "@fetchkit/toolkit/html-template";

async function* list(events: ServerSentEvent[]) {
  yield* events;
}

/** The stream's text and what reached onError. */
async function send(
  events: ServerSentEvent[],
): Promise<{ text: string; errors: unknown[] }> {
  const errors: unknown[] = [];
  const response = createEventStreamResponse(list(events), {
    heartbeatMs: 0,
    onError: (error) => errors.push(error),
  });
  return { text: await response.text(), errors };
}

Deno.test("event stream: a Promise as data is refused with a TypeError, not sent as {}", async () => {
  const { text, errors } = await send([
    { data: "before" },
    { data: Promise.resolve({ n: 1 }) },
    { data: "after" },
  ]);
  assert.equal(text, "data: before\n\n");
  assert.equal(errors.length, 1);
  assert.ok(errors[0] instanceof TypeError);
  assert.equal(
    (errors[0] as Error).message,
    "Server-sent event data is a Promise (await it in the source before yielding); JSON would send it as {}",
  );
});

Deno.test("event stream: a Promise, Map or Set inside data is refused, naming the key", async () => {
  const cases: [unknown, RegExp][] = [
    [{ user: Promise.resolve("x") }, /data at "user" is a Promise/],
    [{ then: () => {}, a: 1 }, /data is a Promise/], // a thenable
    [{ seen: new Set([1]) }, /data at "seen" is a Set \(send \[\.\.\.set\]\)/],
    [[new Map([["a", 1]])], /data at "0" is a Map \(send Object\.fromEntries/],
  ];
  for (const [data, message] of cases) {
    const { text, errors } = await send([{ data }]);
    assert.equal(text, "");
    assert.equal(errors.length, 1);
    assert.match((errors[0] as Error).message, message);
  }
});

Deno.test("event stream: an html value is sent as its HTML text, also inside JSON", async () => {
  const item = html`<li class="new">${"<b>"}</li>`;
  const { text, errors } = await send([
    { data: item, event: "append" },
    { data: html`<p>one</p>\n<p>two</p>` },
    { data: { html: item } },
  ]);
  assert.deepEqual(errors, []);
  assert.equal(
    text,
    'event: append\ndata: <li class="new">&lt;b&gt;</li>\n\n' +
      "data: <p>one</p>\ndata: <p>two</p>\n\n" +
      'data: {"html":"<li class=\\"new\\">&lt;b&gt;</li>"}\n\n',
  );
});

Deno.test("event stream: data that is undefined or a function is refused, naming its type", async () => {
  for (const data of [undefined, () => 1, Symbol("s")]) {
    const { errors } = await send([{ data }]);
    assert.match(
      (errors[0] as Error).message,
      /needs data that is a string or JSON \(got (undefined|function|symbol)\)/,
    );
  }
});

// Vectors from @std/http's http/server_sent_event_stream_test.ts (denoland/std
// at ca58f9427), in our framing ("field: value"); std's events without data
// have no counterpart here (data is required).
Deno.test("event stream: @std/http vectors: line breaks split data, empty and zero fields are sent", async () => {
  const { text } = await send([
    { event: "b", data: "c\nd\re\r\nf", id: "123", retry: 456 },
    { data: "c\nd\re\r\nf" },
    { event: "", data: "" },
    { id: 0, data: "x" },
    { id: 123, data: "x" },
    { retry: 0, data: "x" },
  ]);
  assert.equal(
    text,
    "event: b\nid: 123\nretry: 456\ndata: c\ndata: d\ndata: e\ndata: f\n\n" +
      "data: c\ndata: d\ndata: e\ndata: f\n\n" +
      "event: \ndata: \n\n" +
      "id: 0\ndata: x\n\n" +
      "id: 123\ndata: x\n\n" +
      "retry: 0\ndata: x\n\n",
  );
});

Deno.test("event stream: @std/http vectors: a line break in event or id is refused", async () => {
  for (const field of ["event", "id"] as const) {
    for (const value of ["a\n", "a\r", "a\n\r"]) {
      const { text, errors } = await send([{ [field]: value, data: "x" }]);
      assert.equal(text, "");
      assert.match(
        (errors[0] as Error).message,
        new RegExp(`${field} must not contain a line break`),
      );
    }
  }
});
