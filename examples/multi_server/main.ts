/**
 * One copy of an app that runs as several processes behind a load
 * balancer: the sessions live in one redis-server, so a user logged in
 * through one process is known to every other. See README "Deploying".
 *
 *     PORT=8005 deno run -P=multi-server examples/multi_server/main.ts
 *
 * Configuration: `PORT` (default 8005), `REDIS_URL` (default
 * `redis://127.0.0.1:6379`), `SESSION_SECRET` (required; comma-separated to
 * rotate), `DENO_ENV=production` (the cookie is `__Host-session`, marked
 * `Secure`).
 *
 * @module
 */
import { createClient } from "redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { html, type SafeHtml } from "@fetchkit/toolkit/html-template";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { serve } from "@fetchkit/toolkit/serve";

const port = Number(Deno.env.get("PORT") ?? 8005);
const secrets = Deno.env.get("SESSION_SECRET")?.split(",");
if (!secrets) {
  console.error("Set SESSION_SECRET (see README: Sessions)");
  Deno.exit(1);
}
const client = await createClient({
  url: Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379",
}).connect();

const production = Deno.env.get("DENO_ENV") === "production";
const Session = createContextKey<Session<{ name: string }>>();
const storage = createRedisSessionStorage({
  client,
  cookie: {
    // In production, the `__Host-` prefix makes browsers refuse a cookie of
    // this name set by a sibling subdomain or over plain HTTP.
    name: production ? "__Host-session" : "session",
    secrets,
    secure: production,
    maxAge: 604800,
  },
});
const STYLE = `
  *, *::before, *::after { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, sans-serif; margin: 0; color: #1d2330;
    background: #f5f6f8; }
  main { max-width: 32rem; margin: 2rem auto; padding: 0 1.5rem;
    overflow-wrap: anywhere; }
  h1 { font-size: 1.6rem; margin: 0 0 1rem; }
  form { display: flex; flex-wrap: wrap; align-items: end; gap: .5rem; }
  label { display: grid; gap: .25rem; font-weight: 600; flex: 1 1 12rem; }
  input { font: inherit; font-weight: 400; padding: .45rem .6rem;
    border: 1px solid #aab2c0; border-radius: 6px; }
  button { font: inherit; padding: .45rem 1rem; border: 0; border-radius: 6px;
    background: #1f4fb8; color: #fff; cursor: pointer; }
  a { color: #1f4fb8; }
  .error { color: #a4161a; margin: 0; flex-basis: 100%; }
  [aria-invalid="true"] { border: 2px solid #a4161a; }
  @media (max-width: 30rem) { main { margin: 1.25rem auto; padding: 0 1rem; } }
`;

/** A whole page. */
function page(title: string, content: SafeHtml, status = 200): Response {
  return createHtmlResponse(
    html`<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title} · fetchkit multi_server example</title>
    <link rel="icon" href="data:,">
    <style>${html.raw(STYLE)}</style>
  </head>
  <body>
    <main>
      <h1>${title}</h1>
      ${content}
    </main>
  </body>
</html>`,
    { status },
  );
}

const router = createRouter({
  middleware: [session(Session, storage), formData()],
  defaultHandler: () =>
    page(
      "Page not found",
      html`<p>There is nothing at this address. Go <a href="/">home</a>.</p>`,
      404,
    ),
});
/** A name is 1 to 100 characters once trimmed. */
const MAX_NAME = 100;

/** The login form; with `error`, the problem beside the field, focused. */
function loginForm(value = "", error?: string): SafeHtml {
  const invalid = error === undefined ? null : html.attrs({
    "aria-invalid": "true",
    "aria-describedby": "name-error",
    autofocus: true,
  });
  return html`
    <form method="post" action="/login">
      <label>Your name <input name="name" id="name" required maxlength="${MAX_NAME}"
            autocomplete="name" value="${value}"${invalid}></label>
      <button>Log in</button>
      ${error === undefined
        ? null
        : html`<p class="error" id="name-error" role="alert">${error}</p>`}
    </form>
  `;
}

router.get("/", (context) => {
  const name = context.get(Session)!.get("name");
  const port = server.addr.port;
  return page(
    "Sessions shared by every process",
    name === undefined
      ? html`
        <p>You are not logged in (served by ${port}).</p>
        ${loginForm()}
      `
      : html`
        <p>Hello, ${name} (served by ${port})</p>
        <form method="post" action="/logout"><button>Log out</button></form>
      `,
  );
});
router.post("/login", (context) => {
  const sent = context.get(FormData)?.get("name");
  const name = typeof sent === "string" ? sent.trim() : "";
  if (name === "" || name.length > MAX_NAME) {
    // Said on the page, with the form again: never a silent reload.
    return page(
      "Sessions shared by every process",
      loginForm(
        typeof sent === "string" ? sent.slice(0, MAX_NAME) : "",
        name === ""
          ? "Enter your name: it cannot be empty or only spaces."
          : `Your name can be at most ${MAX_NAME} characters.`,
      ),
      422,
    );
  }
  const current = context.get(Session)!;
  current.regenerateId(true); // against session fixation
  current.set("name", name);
  return redirect("/", 303);
});
router.post("/logout", (context) => {
  context.get(Session)!.destroy();
  return redirect("/", 303);
});

const server = serve(router.fetch, {
  hostname: "127.0.0.1",
  port,
  onListen: ({ hostname, port }) =>
    console.log(`Listening on http://${hostname}:${port}/`),
});
// SIGTERM (a deploy) or Ctrl-C: serve() lets in-flight requests finish.
await server.finished;
await client.quit();
