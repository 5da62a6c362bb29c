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
