// A small urlencoded body that comes after formData()'s deadline: the 408
// is the answer, and the handler never runs, even when the bytes come later.
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData, FormFields } from "@fetchkit/toolkit/form-data-middleware";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("formData(): a small body later than idleTimeout gets 408, and the handler never runs", async () => {
  let ran = 0;
  const router = createRouter();
  router.post("/", formData({ idleTimeout: 40 }), ({ get }) => {
    ran++;
    return new Response(String(get(FormFields)?.a));
  });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await delay(150);
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
  assert.equal(response.status, 408);
  assert.match(await response.text(), /40/);
  await delay(250);
  assert.equal(ran, 0);
});

Deno.test("formData(): a small body within idleTimeout reaches the handler once", async () => {
  let ran = 0;
  const router = createRouter();
  router.post("/", formData({ idleTimeout: 500 }), ({ get }) => {
    ran++;
    return new Response(String(get(FormFields)?.a));
  });
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await delay(20);
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
  assert.equal(await response.text(), "1");
  assert.equal(ran, 1);
});
