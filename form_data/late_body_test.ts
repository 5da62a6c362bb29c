// A small urlencoded body that comes after formData()'s deadline: the 408
// is the answer, and the handler never runs, even when the bytes come later.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData, FormFields } from "@fetchkit/toolkit/form-data-middleware";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Posts "a=1", arriving after `arrivesAfter` ms, to a route whose
 * `formData()` waits `idleTimeout` ms; the answer, and how often the
 * handler ran.
 */
async function postLate(
  idleTimeout: number,
  arrivesAfter: number,
): Promise<{ response: Response; ran: () => number }> {
  let ran = 0;
  const router = createRouter();
  router.post("/", formData({ idleTimeout }), ({ get }) => {
    ran++;
    return new Response(String(get(FormFields)?.a));
  });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await delay(arrivesAfter);
      controller.enqueue(new TextEncoder().encode("a=1"));
      controller.close();
    },
  });
  const response = await router.fetch(
    new Request("http://localhost/", {
      method: "POST",
      body,
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "content-length": "3",
      },
      duplex: "half",
    } as RequestInit),
  );
  return { response, ran: () => ran };
}

Deno.test("formData(): a small body later than idleTimeout gets 408, and the handler never runs", async () => {
  const { response, ran } = await postLate(40, 150);
  assert.equal(response.status, 408);
  assert.match(await response.text(), /40/);
  await delay(250);
  assert.equal(ran(), 0);
});

Deno.test("formData(): a small body within idleTimeout reaches the handler once", async () => {
  const { response, ran } = await postLate(500, 20);
  assert.equal(await response.text(), "1");
  assert.equal(ran(), 1);
});

/** A urlencoded "a=1" whose bytes come after `ms`, as a request to `path`. */
function latePost(ms: number, path = "/"): Request {
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await delay(ms);
      controller.enqueue(new TextEncoder().encode("a=1"));
      controller.close();
    },
  });
  return new Request(new URL(path, "http://localhost/"), {
    method: "POST",
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": "3",
    },
    duplex: "half",
  } as RequestInit);
}

Deno.test("formData(): after waiting for the body, the handler's answer goes through the middleware around it, with staged headers", async () => {
  const router = createRouter({
    middleware: [async (context, next) => {
      context.responseHeaders.set("X-Staged", "router");
      const response = await next();
      response.headers.set("X-After", "router");
      return response;
    }],
  });
  router.post(
    "/",
    (context, next) => {
      context.responseHeaders.set("X-Route", "staged");
      return next();
    },
    formData(),
    ({ get }) => new Response(`a=${get(FormFields)?.a}`),
  );
  const response = await router.fetch(latePost(20));
  assert.equal(await response.text(), "a=1");
  assert.equal(response.headers.get("X-Staged"), "router");
  assert.equal(response.headers.get("X-Route"), "staged");
  assert.equal(response.headers.get("X-After"), "router");
});

Deno.test("formData(): after waiting for the body, a handler's throw reaches the error boundary, and an async handler's answer is sent", async () => {
  const router = createRouter();
  router.post("/throws", formData(), () => {
    throw new Error("boom");
  });
  router.post("/later", formData(), async ({ get }) => {
    await delay(5);
    return new Response(`later ${get(FormFields)?.a}`);
  });
  const error = console.error;
  console.error = () => {};
  try {
    const thrown = await router.fetch(
      latePost(20, "/throws"),
    );
    assert.equal(thrown.status, 500);
    assert.equal(await thrown.text(), "Internal Server Error");
  } finally {
    console.error = error;
  }
  const later = await router.fetch(
    latePost(20, "/later"),
  );
  assert.equal(await later.text(), "later 1");
});

/** A urlencoded `text` whose bytes come after `ms`, as a request to `path`. */
function latePostOf(text: string, ms: number, path: string): Request {
  const bytes = new TextEncoder().encode(text);
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await delay(ms);
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return new Request(new URL(path, "http://localhost/"), {
    method: "POST",
    body,
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "content-length": String(bytes.length),
    },
    duplex: "half",
  } as RequestInit);
}

Deno.test("formData() first in the chain, after waiting for the body: the handler's staged headers, a refusal, and an onError that throws reach the answer", async () => {
  const caught: unknown[] = [];
  const router = createRouter({
    onError: (error) => {
      caught.push(error);
      return new Response("from the router", { status: 503 });
    },
  });
  router.post("/staged", formData(), ({ get, responseHeaders }) => {
    responseHeaders.set("X-Handler", "staged");
    return new Response(`a=${get(FormFields)?.a}`);
  });
  router.post("/plain", formData(), () => new Response("not reached"));
  router.post(
    "/fails",
    formData({
      onError: () => {
        throw new Error("onError failed");
      },
    }),
    () => new Response("not reached"),
  );
  const staged = await router.fetch(latePostOf("a=1", 20, "/staged"));
  assert.equal(await staged.text(), "a=1");
  assert.equal(staged.headers.get("X-Handler"), "staged");
  const refused = await router.fetch(latePostOf("a=%zz", 20, "/plain"));
  assert.equal(refused.status, 400);
  assert.match(await refused.text(), /percent-encoding/);
  const failed = await router.fetch(latePostOf("a=%zz", 20, "/fails"));
  assert.equal(failed.status, 503);
  assert.equal(await failed.text(), "from the router");
  assert.equal((caught[0] as Error).message, "onError failed");
});
