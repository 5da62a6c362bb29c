/**
 * One copy of an app that runs as several processes behind a load
 * balancer: the sessions live in one redis-server, so a user logged in
 * through one process is known to every other. See README "Deploying".
 *
 *     PORT=8001 deno run --allow-net=127.0.0.1 --allow-env examples/multi_server/main.ts
 *
 * Configuration: `PORT` (default 8000), `REDIS_URL` (default
 * `redis://127.0.0.1:6379`), `SESSION_SECRET` (required; comma-separated to
 * rotate), `DENO_ENV=production` (the cookie is `__Host-session`, marked
 * `Secure`).
 *
 * @module
 */
import { createClient } from "redis";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { html } from "@fetchkit/toolkit/html-template";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createRedisSessionStorage } from "@fetchkit/toolkit/session-storage-redis";
import { serve } from "@fetchkit/toolkit/serve";

const port = Number(Deno.env.get("PORT") ?? 8000);
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
const router = createRouter({
  middleware: [session(Session, storage), formData()],
});
router.get("/", (context) => {
  const name = context.get(Session)!.get("name");
  return createHtmlResponse(
    name === undefined
      ? html`
        <form method="post"
          action="/login"><input name="name"> <button>Log in</button></form> (served by ${server
            .addr.port})
      `
      : html`
        Hello, ${name} (served by ${server.addr.port}) <form method="post"
          action="/logout"><button>Log out</button></form>
      `,
  );
});
router.post("/login", (context) => {
  const name = String(context.get(FormData)?.get("name") ?? "").trim();
  if (name === "") return redirect("/", 303);
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
