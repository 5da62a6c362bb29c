import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import {
  createEventStreamResponse,
  type ServerSentEvent,
} from "@fetchkit/toolkit/response/event-stream";

async function* list(events: ServerSentEvent[]) {
  yield* events;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

Deno.test("event stream: framing and headers", async () => {
  const response = createEventStreamResponse(
    list([
      { data: "one" },
      { data: "two\nlines\r\nand\rmore", event: "update", id: 7 },
      { data: { json: true }, retry: 2500 },
      { data: "" },
    ]),
    { retry: 1000, headers: { "X-Extra": "1" } },
  );
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("Content-Type"), "text/event-stream");
  assert.equal(response.headers.get("Cache-Control"), "no-cache");
  assert.equal(response.headers.get("X-Accel-Buffering"), "no");
  assert.equal(response.headers.get("X-Extra"), "1");
  assert.equal(
    await response.text(),
    "retry: 1000\n\n" +
      "data: one\n\n" +
      "event: update\nid: 7\ndata: two\ndata: lines\ndata: and\ndata: more\n\n" +
      'retry: 2500\ndata: {"json":true}\n\n' +
      "data: \n\n",
  );
});

Deno.test("event stream: a bad event or a failing source ends the stream and is reported", async () => {
  const errors: unknown[] = [];
  let finished = false;
  async function* bad() {
    try {
      yield { data: "ok" };
      yield { data: "x", event: "two\nlines" };
      yield { data: "never" };
    } finally {
      finished = true;
    }
  }
  const response = createEventStreamResponse(bad(), {
    onError: (error) => errors.push(error),
  });
  assert.equal(await response.text(), "data: ok\n\n");
  await sleep(0);
  assert.equal(finished, true);
  assert.match(String(errors[0]), /event must not contain a line break/);

  async function* failing() {
    yield { data: "before" };
    throw new Error("database gone");
  }
  const failed = createEventStreamResponse(failing(), {
    onError: (error) => errors.push(error),
  });
  assert.equal(await failed.text(), "data: before\n\n");
  assert.match(String(errors[1]), /database gone/);
  // The default reports with console.error.
  const logged: unknown[] = [];
  const error = console.error;
  console.error = (...args: unknown[]) => logged.push(args);
  try {
    await createEventStreamResponse(failing()).text();
  } finally {
    console.error = error;
  }
  assert.match(String(logged[0]), /Event stream source failed:.*database gone/);
});

Deno.test("event stream: cancelling the body calls the source's return()", async () => {
  let finished = false;
  async function* forever() {
    try {
      for (let n = 0;; n++) yield { data: String(n) };
    } finally {
      finished = true;
    }
  }
  const reader = createEventStreamResponse(forever()).body!.getReader();
  const { value } = await reader.read();
  assert.equal(new TextDecoder().decode(value), "data: 0\n\n");
  await reader.cancel();
  await sleep(0);
  assert.equal(finished, true);
});

Deno.test("event stream: an aborted signal ends the stream and a waiting source", async () => {
  let finished = false;
  const controller = new AbortController();
  async function* slow(signal: AbortSignal) {
    try {
      while (!signal.aborted) {
        yield { data: "tick" };
        await sleep(10_000, signal);
      }
    } finally {
      finished = true;
    }
  }
  const response = createEventStreamResponse(slow(controller.signal), {
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  const pending = reader.read();
  controller.abort();
  assert.equal((await pending).done, true);
  await sleep(0);
  assert.equal(finished, true);
});

Deno.test("event stream: a heartbeat comment in silence", async () => {
  const controller = new AbortController();
  async function* quiet() {
    yield { data: "hi" };
    await sleep(130, controller.signal);
  }
  const response = createEventStreamResponse(quiet(), { heartbeatMs: 40 });
  const text = await response.text();
  assert.match(text, /^data: hi\n\n(:\n\n)+$/);
  assert.ok(text.split(":\n\n").length - 1 >= 2, text);
  const none = createEventStreamResponse(quiet(), { heartbeatMs: 0 });
  assert.equal(await none.text(), "data: hi\n\n");
});

Deno.test("event stream: bad arguments are refused", () => {
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => createEventStreamResponse([{ data: "x" }] as any),
    { name: "TypeError", message: /source must be an async iterable/ },
  );
  assert.throws(
    () => createEventStreamResponse(list([]), { heartbeatMs: -1 }),
    /heartbeatMs must be a number of ms >= 0, got -1/,
  );
  assert.throws(
    () => createEventStreamResponse(list([]), { retry: 1.5 }),
    /retry must be a whole number/,
  );
});

Deno.test("event stream: through Deno.serve, the source ends when the client leaves; Last-Event-ID resumes", async () => {
  let open = 0;
  let closed = 0;
  const router = createRouter();
  router.get("/events", ({ request }) => {
    const after = Number(request.headers.get("Last-Event-ID") ?? 0) || 0;
    async function* counter(signal: AbortSignal) {
      open++;
      try {
        for (let n = after + 1; !signal.aborted; n++) {
          yield { id: n, data: `n=${n}` };
          await sleep(20, signal);
        }
      } finally {
        closed++;
      }
    }
    return createEventStreamResponse((signal) => counter(signal));
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/events`;
    const client = new AbortController();
    const response = await fetch(url, {
      signal: client.signal,
      headers: { "Last-Event-ID": "41" },
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream())
      .getReader();
    let text = "";
    while (!text.includes("id: 43")) text += (await reader.read()).value;
    assert.match(text, /^id: 42\ndata: n=42\n\nid: 43\ndata: n=43\n\n/);
    assert.equal(open, 1);
    client.abort();
    await reader.cancel().catch(() => {});
    for (let i = 0; i < 100 && closed === 0; i++) await sleep(20);
    assert.equal(closed, 1);
  } finally {
    await server.shutdown();
  }
});

Deno.test("event stream: through Deno.serve without a signal, a closed connection cancels the body", async () => {
  let closed = false;
  async function* ticks() {
    try {
      for (let n = 0;; n++) {
        yield { data: String(n) };
        await sleep(10);
      }
    } finally {
      closed = true;
    }
  }
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => createEventStreamResponse(ticks()),
  );
  try {
    const client = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      signal: client.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    client.abort();
    await reader.cancel().catch(() => {});
    for (let i = 0; i < 100 && !closed; i++) await sleep(20);
    assert.equal(closed, true);
  } finally {
    await server.shutdown();
  }
});

Deno.test("event stream: a function source gets a signal that aborts when the stream ends", async () => {
  let seen: AbortSignal | undefined;
  let finished = false;
  async function* waiting(signal: AbortSignal) {
    try {
      yield { data: "first" };
      await sleep(60_000, signal); // no yield for a minute
      yield { data: "late" };
    } finally {
      finished = true;
    }
  }
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () =>
      createEventStreamResponse((signal) => {
        seen = signal;
        return waiting(signal);
      }, { heartbeatMs: 0 }),
  );
  try {
    const client = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.addr.port}/`, {
      signal: client.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    assert.equal(seen?.aborted, false);
    client.abort();
    await reader.cancel().catch(() => {});
    for (let i = 0; i < 100 && !finished; i++) await sleep(20);
    assert.equal(seen?.aborted, true);
    assert.equal(finished, true);
  } finally {
    await server.shutdown();
  }
});

/** The HTML spec's event stream interpretation, enough for round trips. */
function parseEventStream(
  text: string,
): { data: string; event: string; id: string }[] {
  const events: { data: string; event: string; id: string }[] = [];
  let data = "";
  let event = "";
  let id = "";
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === "") {
      if (data !== "") {
        events.push({ data: data.slice(0, -1), event: event || "message", id });
      }
      data = "";
      event = "";
      continue;
    }
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "data") data += value + "\n";
    else if (field === "event") event = value;
    else if (field === "id" && !value.includes("\0")) id = value;
  }
  return events;
}

Deno.test("event stream: random data, events and ids survive the browser's parser", async () => {
  const alphabet = [
    "a",
    " ",
    ":",
    "\n",
    "\r",
    "\r\n",
    "data: x",
    "é",
    "😀",
    "id",
  ];
  let seed = 11;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  const text = (max: number) => {
    let out = "";
    const length = Math.floor(random() * max);
    for (let i = 0; i < length; i++) {
      out += alphabet[Math.floor(random() * alphabet.length)];
    }
    return out;
  };
  const sent = Array.from({ length: 500 }, (_, n) => ({
    data: text(12),
    event: random() < 0.5 ? undefined : text(6).replace(/[\r\n]/g, "") || "x",
    id: String(n),
  }));
  const response = createEventStreamResponse(list(sent), { heartbeatMs: 0 });
  const received = parseEventStream(await response.text());
  // An event whose data is empty is still dispatched ("data: " line).
  assert.equal(received.length, sent.length);
  for (let i = 0; i < sent.length; i++) {
    assert.deepEqual(received[i], {
      data: sent[i].data.replace(/\r\n|\r/g, "\n"),
      event: sent[i].event || "message",
      id: sent[i].id,
    }, JSON.stringify(sent[i]));
  }
});
