/**
 * A Cloudflare Worker built from the toolkit, for `workerd_test.ts`: the
 * router (whose generated matcher falls back to its interpreter where
 * `new Function` is refused), responses, `html`, cookie sessions and
 * `formData()`.
 *
 * @module
 */
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { html } from "@fetchkit/toolkit/html-template";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createJsonResponse } from "@fetchkit/toolkit/response/json";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { logger } from "@fetchkit/toolkit/logger-middleware";
import { serveStatic } from "@fetchkit/toolkit/static-middleware";
import { createDiskUploadHandler } from "@fetchkit/toolkit/form-data-middleware";
import { waitUntil, withExecutionContext } from "@fetchkit/toolkit/wait-until";

const Session = createContextKey<Session>();
const lines: string[] = [];
const router = createRouter({
  middleware: [logger({ log: (line) => lines.push(line) })],
});
const storage = createCookieSessionStorage({
  cookie: { secrets: ["w".repeat(40)], secure: false },
});

router.get("/", () => createHtmlResponse(html`<h1>${"<hello>"}</h1>`));
router.get("/users/:id", ({ params }) => createJsonResponse({ id: params.id }));
router.get("/go", () => redirect("/"));
router.get("/count", session(Session, storage), (context) => {
  const current = context.get(Session)!;
  const count = Number(current.get("count") ?? 0) + 1;
  current.set("count", count);
  return new Response(String(count));
});
router.post("/form", formData(), (context) => {
  const form = context.get(FormData)!;
  const file = form.get("file");
  return createJsonResponse({
    name: form.get("name"),
    size: file instanceof File ? file.size : null,
  });
});
router.get("/log", () => new Response(String(lines.length)));
// No file system here: the error says so.
router.get("/static", () => {
  try {
    serveStatic({ root: "/" });
    return new Response("served");
  } catch (error) {
    return new Response((error as Error).message, { status: 501 });
  }
});
router.post(
  "/disk",
  formData({ uploadHandler: createDiskUploadHandler() }),
  () => new Response("saved"),
);

// Work after the answer: done only if the execution context waits for it
// (workerd cancels a request's timers once it is answered otherwise).
const done: string[] = [];
router.get("/wait/:name", (context) => {
  const name = context.params.name;
  waitUntil(
    context,
    new Promise((resolve) => setTimeout(resolve, 300)).then(() =>
      done.push(name)
    ),
  );
  return new Response("answered");
});
router.get("/waited", () => new Response(done.join(",")));

export default { fetch: withExecutionContext(router.fetch) };
