/** @jsxImportSource hono/jsx */
/**
 * The page of `stream_ttfb.ts`, served two ways in one process, each on
 * its own port: our `html` with `html.defer()` through
 * `createHtmlResponse()` and the router, and Hono's `jsxRenderer` with
 * `stream: true` and `<Suspense>`. Same content: a header, 50 list items,
 * a comments section whose 10 comments resolve after `DELAY` ms (its
 * fallback shown first, swapped in by an inline script), a footer.
 *
 * Run by stream_ttfb.ts: deno run --allow-net --allow-env bench/html/_stream_servers.tsx <ours port> <hono port> <delay ms>
 */
import { Hono } from "hono";
import { Suspense } from "hono/jsx";
import { jsxRenderer } from "hono/jsx-renderer";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";

const [oursPort, honoPort, delayText] = Deno.args.map(Number);
const DELAY = delayText;
const ITEMS = Array.from({ length: 50 }, (_, i) => `Item ${i} & more`);
const COMMENTS = Array.from({ length: 10 }, (_, i) => `Comment <${i}>`);

function comments(): Promise<string[]> {
  return new Promise((resolve) => setTimeout(resolve, DELAY, COMMENTS));
}

// Ours.
const router = createRouter();
// deno-fmt-ignore: the formatter would reflow the HTML inside `html`.
router.get("/", () =>
  createHtmlResponse(html`<!doctype html><html><head><title>Post</title></head><body><h1>A post</h1><ul>${ITEMS.map((item) => html`<li>${item}</li>`)}</ul><section>${html.defer(comments().then((list) => html`<ol>${list.map((c) => html`<li>${c}</li>`)}</ol>`), html`<p>Loading comments…</p>`)}</section><footer>The end</footer></body></html>`));
Deno.serve(
  { hostname: "127.0.0.1", port: oursPort, onListen() {} },
  router.fetch,
);

// Hono.
async function Comments() {
  const list = await comments();
  return <ol>{list.map((c) => <li key={c}>{c}</li>)}</ol>;
}
const app = new Hono();
app.get(
  "/",
  jsxRenderer(({ children }) => (
    <html>
      <head>
        <title>Post</title>
      </head>
      <body>{children}</body>
    </html>
  ), { stream: true }),
);
app.get("/", (c) =>
  c.render(
    <>
      <h1>A post</h1>
      <ul>{ITEMS.map((item) => <li key={item}>{item}</li>)}</ul>
      <section>
        <Suspense fallback={<p>Loading comments…</p>}>
          <Comments />
        </Suspense>
      </section>
      <footer>The end</footer>
    </>,
  ));
Deno.serve({ hostname: "127.0.0.1", port: honoPort, onListen() {} }, app.fetch);
console.log("ready");
