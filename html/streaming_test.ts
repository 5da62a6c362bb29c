// Holes with Promises and async iterables, and html.defer(): what is
// escaped, what order chunks come in, what a failure renders. Portable
// (Node and Bun too): streams are read in process, promises resolved by
// the test, so each assertion about "not yet" is exact, not timed.
import assert from "node:assert/strict";
import { html, SafeHtml, StreamingHtml } from "@fetchkit/toolkit/html-template";

/** A promise the test resolves or rejects when it chooses. */
function later<T = unknown>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/** Reads a stream chunk by chunk, as text. */
function chunksOf(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  return {
    async next(): Promise<string | undefined> {
      const step = await reader.read();
      return step.done ? undefined : decoder.decode(step.value);
    },
    async rest(): Promise<string> {
      let text = "";
      for (let chunk; (chunk = await this.next()) !== undefined;) text += chunk;
      return text;
    },
    /** Whether a read is still waiting after the pending jobs ran. */
    async waiting(): Promise<boolean> {
      const marker = Symbol();
      const read = reader.read();
      // Several macrotask turns: everything ready has been written by then.
      const result = await Promise.race([
        read,
        new Promise((resolve) => setTimeout(resolve, 30, marker)),
      ]);
      if (result !== marker) {
        throw new Error(`a chunk came: ${JSON.stringify(result)}`);
      }
      pendingRead = read;
      return true;
    },
  };
}
let pendingRead: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
async function takePending(): Promise<string | undefined> {
  const step = await pendingRead!;
  pendingRead = undefined;
  return step.done ? undefined : new TextDecoder().decode(step.value);
}

const silent = { onError: () => {} };

/** The stream of a template that must be a streaming one. */
function streamOf(
  page: SafeHtml,
  options?: Parameters<StreamingHtml["stream"]>[0],
): ReadableStream<Uint8Array> {
  assert.ok(page instanceof StreamingHtml, "a streaming template");
  return page.stream(options);
}

Deno.test("html: a Promise in a hole makes a StreamingHtml whose text() escapes the value", async () => {
  const page = html`<p title="${Promise.resolve('"x"')}">${
    Promise.resolve("<b>")
  } ${Promise.resolve(html`<i>${"&"}</i>`)} ${Promise.resolve(3)}</p>`;
  assert.ok(page instanceof StreamingHtml);
  assert.ok(page instanceof SafeHtml, "it nests where html goes");
  assert.equal(
    await page.text(),
    '<p title="&quot;x&quot;">&lt;b&gt; <i>&amp;</i> 3</p>',
  );
  // A synchronous template is unchanged: a plain SafeHtml.
  const plain = html`<p>${"a"}</p>`;
  assert.equal(plain.constructor, SafeHtml);
  assert.equal(await plain.text(), "<p>a</p>");
});

Deno.test("html: async iterables, arrays of promises and nested streaming templates, escaped like any value", async () => {
  async function* rows() {
    yield "<1>";
    yield html`<b>2</b>`;
    yield [Promise.resolve("3"), null, false];
  }
  const inner = html`<em>${Promise.resolve("in & out")}</em>`;
  const page = html`<ul>${rows()}</ul>${[Promise.resolve("<a>"), "b"]}${inner}`;
  assert.equal(
    await page.text(),
    "<ul>&lt;1&gt;<b>2</b>3</ul>&lt;a&gt;b<em>in &amp; out</em>",
  );
  // A streaming template nested in a synchronous one streams the outer too.
  const outer = html`<main>${inner}</main>`;
  assert.ok(outer instanceof StreamingHtml);
  assert.equal(await outer.text(), "<main><em>in &amp; out</em></main>");
});

Deno.test("html: a streaming template has no string: String() and html.attrs() say why", () => {
  const page = html`<p>${Promise.resolve(1)}</p>`;
  assert.throws(
    () => String(page),
    /holds parts that are not ready \(Promises, async iterables or html.defer\(\)\).*createHtmlResponse\(\)/,
  );
  assert.throws(() => page.value, /not ready/);
  assert.throws(() => html.attrs({ title: page }), /not ready/);
});

Deno.test("html: a pending value where only names or attributes go is a TypeError naming the hole", () => {
  assert.throws(
    () => html`<a href=${Promise.resolve("/x")}>`,
    /hole 1 is an unquoted attribute value, where a value that is not ready/,
  );
  assert.throws(
    () => html`<h${Promise.resolve(1)}>`,
    /hole 1 continues a tag or attribute name/,
  );
  assert.throws(
    () =>
      html`
        <p>${"ok"}</p>
        <div ${Promise.resolve("hidden")}>
      `,
    /hole 2 stands where an attribute goes/,
  );
  assert.throws(
    () => html`<p title="${html.defer(Promise.resolve(1), "…")}">`,
    /html.defer\(\) cannot go in an attribute value/,
  );
  assert.throws(
    () => html.defer("not a promise" as never),
    /promise must be a Promise/,
  );
  assert.throws(
    () => html.defer(Promise.resolve(1), html`${Promise.resolve(2)}`),
    /the fallback is sent at once/,
  );
});

Deno.test("stream(): everything before the first pending hole at once, then each part in document order", async () => {
  const first = later<string>();
  const second = later<string>();
  // deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
  const page = html`<head>${"<t>"}</head><p>${first.promise}</p><p>${second.promise}</p><end>`;
  const chunks = chunksOf(streamOf(page));
  assert.equal(await chunks.next(), "<head>&lt;t&gt;</head><p>");
  // The second part is ready first: it waits for the first, in order.
  second.resolve("two");
  assert.ok(await chunks.waiting());
  first.resolve("<one>");
  assert.equal(await takePending(), "&lt;one&gt;</p><p>");
  assert.equal(await chunks.rest(), "two</p><end>");
});

Deno.test("stream(): an async iterable's items go out one by one, as they come", async () => {
  const gate = later<void>();
  async function* items() {
    yield "a";
    await gate.promise;
    yield "b";
  }
  const chunks = chunksOf(streamOf(html`<ol>${items()}</ol>`));
  assert.equal(await chunks.next(), "<ol>");
  assert.equal(await chunks.next(), "a");
  assert.ok(await chunks.waiting());
  gate.resolve();
  assert.equal(await takePending(), "b");
  assert.equal(await chunks.rest(), "</ol>");
});

Deno.test("html.defer(): fallback in place at once, content before </body> as it resolves, with a nonce'd swap script", async () => {
  const slow = later<SafeHtml>();
  const fast = later<string>();
  // deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
  const page = html`<!doctype html><body><main>${html.defer(slow.promise, html`<p>Loading…</p>`, { name: "comments" })}${html.defer(fast.promise)}</main><footer>f</footer></body></html>`;
  const chunks = chunksOf(streamOf(page, { nonce: "abc+/=" }));
  const shell = await chunks.next();
  assert.equal(
    shell,
    '<!doctype html><body><main><template id="fk-d-1"></template><p>Loading…</p><template id="fk-e-1"></template><template id="fk-d-2"></template><template id="fk-e-2"></template></main><footer>f</footer>',
    "the whole shell, the fallbacks in place, </body> held back",
  );
  // In the order they resolve, not in document order.
  fast.resolve("<fast>");
  const fastPart = await chunks.next();
  assert.match(
    fastPart!,
    /^<div id="fk-c-2" data-fk-deferred>&lt;fast&gt;<\/div><script nonce="abc\+\/=">function fkSwap\(n\)\{.*\};fkSwap\(2\)<\/script>$/,
  );
  // deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
  slow.resolve(html`<ul><li>${"<3"}</li></ul>`);
  assert.equal(
    await chunks.next(),
    '<div id="fk-c-1" data-fk-deferred><ul><li>&lt;3</li></ul></div><script nonce="abc+/=">fkSwap(1)</script>',
    "the swap function is defined once",
  );
  assert.equal(await chunks.rest(), "</body></html>");
});

Deno.test("html.defer(): without </body>, the parts go at the very end; text() puts them in place", async () => {
  const part = () =>
    html`<div>${html.defer(Promise.resolve("x"), "wait")}</div>`;
  const streamed = await new Response(streamOf(part())).text();
  assert.match(
    streamed,
    /^<div><template id="fk-d-1"><\/template>wait<template id="fk-e-1"><\/template><\/div><div id="fk-c-1" data-fk-deferred>x<\/div><script>function fkSwap/,
  );
  assert.equal(await part().text(), "<div>x</div>");
});

Deno.test("a failing part renders a placeholder naming it, is reported, and the page completes", async () => {
  const errors: [string, string][] = [];
  const onError = (error: unknown, name: string) =>
    errors.push([name, (error as Error).message]);
  async function* broken() {
    yield "1";
    throw new Error("feed down");
  }
  const page = html`<body>${Promise.reject(new Error("db down"))}|${broken()}|${
    html.defer(Promise.reject(new Error("slow down")), "…", {
      name: "comments",
    })
  }|${
    html.defer(Promise.reject(new Error("x")), "…", {
      name: "ads",
      error: () => html`<i>no ads</i>`,
    })
  }</body>`;
  const text = await new Response(streamOf(page, { onError })).text();
  assert.match(
    text,
    /^<body><span data-fk-error="part" role="alert">The part could not be loaded.<\/span>\|1<span data-fk-error="streamed part" role="alert">/,
  );
  assert.match(
    text,
    /<div id="fk-c-1" data-fk-deferred><span data-fk-error="comments" role="alert">The comments could not be loaded.<\/span><\/div>/,
  );
  assert.match(text, /<div id="fk-c-2" data-fk-deferred><i>no ads<\/i><\/div>/);
  assert.match(text, /<\/script><\/body>$/);
  assert.deepEqual(errors.sort(), [
    ["ads", "x"],
    ["comments", "slow down"],
    ["part", "db down"],
    ["streamed part", "feed down"],
  ]);
  assert.doesNotMatch(
    text,
    /db down|feed down|slow down/,
    "no error text to the client",
  );
});

Deno.test("a rejected hole never becomes an unhandled rejection, even when the page is never rendered", async () => {
  let unhandled = 0;
  const count = () => unhandled++;
  globalThis.addEventListener?.("unhandledrejection", count);
  try {
    html`<p>${Promise.reject(new Error("never read"))}${
      html.defer(Promise.reject(new Error("never read")))
    }</p>`;
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(unhandled, 0);
  } finally {
    globalThis.removeEventListener?.("unhandledrejection", count);
  }
});

Deno.test("cancelling the stream (the client left) stops the rendering and closes an async iterator", async () => {
  let closed = false;
  const gate = later<void>();
  async function* items() {
    try {
      yield "a";
      await gate.promise;
      yield "b";
    } finally {
      closed = true;
    }
  }
  const stream = streamOf(
    html`<ol>${items()}</ol>${Promise.resolve("after")}`,
    silent,
  );
  const reader = stream.getReader();
  assert.equal(new TextDecoder().decode((await reader.read()).value), "<ol>");
  assert.equal(new TextDecoder().decode((await reader.read()).value), "a");
  await reader.cancel();
  gate.resolve();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(closed, true, "the iterator's finally ran");
});

Deno.test("a Promise in an attribute value that resolves to html.defer() fails that part only", async () => {
  const errors: string[] = [];
  const page = html`<p title="${
    Promise.resolve(html.defer(Promise.resolve("x")))
  }">ok</p>`;
  const text = await new Response(
    streamOf(page, { onError: (error) => errors.push(String(error)) }),
  ).text();
  assert.equal(
    text,
    '<p title="The part could not be loaded.">ok</p>',
    "text only: markup would end the attribute value",
  );
  assert.match(errors[0], /html.defer\(\) cannot go in an attribute value/);
});
