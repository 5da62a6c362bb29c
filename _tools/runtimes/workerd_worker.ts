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
import { createPasskeys, type Passkey } from "@fetchkit/toolkit/passkeys";
import { waitUntil, withExecutionContext } from "@fetchkit/toolkit/wait-until";
import { Route } from "@fetchkit/toolkit/fetch-router/routes";
import * as v from "valibot";

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
// A valibot body: Workers refuse `new Function`, so valibot's own validate.
router.post(
  new Route("POST", "/orders", {
    body: v.object({
      sku: v.pipe(v.string(), v.minLength(1)),
      qty: v.pipe(v.number(), v.integer()),
    }),
  }),
  ({ input }) => createJsonResponse(input.body),
);
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

// Passkeys: both ceremonies, checked by @simplewebauthn/server in workerd.
const passkeys = createPasskeys({
  rpId: "localhost",
  rpName: "Worker",
  origins: ["http://localhost:8000"],
  session: Session,
});
const stored = new Map<string, Passkey>();
const sessions = session(Session, storage);
router.post(
  "/passkeys/register/options",
  sessions,
  async (context) =>
    createJsonResponse(
      await passkeys.registrationOptions(context, { id: "1", name: "ada" }),
    ),
);
router.post("/passkeys/register", sessions, async (context) => {
  const passkey = await passkeys.verifyRegistration(
    context,
    await context.request.json(),
  );
  stored.set(passkey.id, passkey);
  return createJsonResponse({ id: passkey.id });
});
router.post(
  "/passkeys/login/options",
  sessions,
  (context) => createJsonResponse(passkeys.authenticationOptions(context)),
);
router.post("/passkeys/login", sessions, async (context) => {
  const { userId, passkey } = await passkeys.verifyAuthentication(
    context,
    await context.request.json(),
    (id) => stored.get(id),
  );
  stored.set(passkey.id, passkey);
  return createJsonResponse({ userId, counter: passkey.counter });
});

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
