import assert from "node:assert/strict";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";

Deno.test("createHtmlResponse sends a string with the HTML content type", async () => {
  const response = createHtmlResponse("<h1>Hi</h1>");
  assert.equal(response.status, 200);
  assert.equal(
    response.headers.get("Content-Type"),
    "text/html; charset=utf-8",
  );
  assert.equal(await response.text(), "<h1>Hi</h1>");
});

Deno.test("createHtmlResponse sends an html result without escaping it again", async () => {
  const response = createHtmlResponse(html`<p>${"a<b"}</p>`);
  assert.equal(await response.text(), "<p>a&lt;b</p>");
});

Deno.test("createHtmlResponse streams a ReadableStream body", async () => {
  const bytes = new TextEncoder().encode("<p>streamed</p>");
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, 4));
      controller.enqueue(bytes.subarray(4));
      controller.close();
    },
  });
  const response = createHtmlResponse(body);
  assert.equal(
    response.headers.get("Content-Type"),
    "text/html; charset=utf-8",
  );
  assert.equal(await response.text(), "<p>streamed</p>");
});

Deno.test("createHtmlResponse uses status, statusText and headers of init", () => {
  const response = createHtmlResponse("<h1>Not Found</h1>", {
    status: 404,
    statusText: "Nope",
    headers: [["Cache-Control", "no-store"]],
  });
  assert.equal(response.status, 404);
  assert.equal(response.statusText, "Nope");
  assert.equal(response.headers.get("Cache-Control"), "no-store");
  assert.equal(
    response.headers.get("Content-Type"),
    "text/html; charset=utf-8",
  );
});

Deno.test("createHtmlResponse keeps a Content-Type given in init", () => {
  const response = createHtmlResponse("<x/>", {
    headers: { "content-type": "application/xhtml+xml" },
  });
  assert.equal(response.headers.get("Content-Type"), "application/xhtml+xml");
});

Deno.test("createHtmlResponse adds no doctype", async () => {
  assert.equal(await createHtmlResponse("<li>1</li>").text(), "<li>1</li>");
});
