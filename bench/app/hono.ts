/**
 * The auth example's signed-in dashboard and password sign-in, written on
 * Hono as its docs show, for the whole-app benchmark (`load.ts`,
 * `instructions.ts`, `memory.ts`):
 *
 * - the middlewares the example also runs: `requestId()`,
 *   `secureHeaders()` with the same Content-Security-Policy, `etag()`,
 *   `csrf()`;
 * - a session: an id in a signed cookie (`hono/cookie`'s
 *   `setSignedCookie`, HMAC-SHA256), the data in Deno KV under
 *   `["sessions", id]` with a seven-day expiry, written only when changed;
 *   the user loaded from KV on every request;
 * - `GET /dashboard`: the same page, same markup, escaped by `hono/html`;
 *   a guest is sent to `/auth/login`;
 * - `POST /auth/login`: a urlencoded form, the email's attempts counted in
 *   KV (5 per 15 minutes, cleared by a success), the password checked with
 *   bcrypt (against a dummy hash for an unknown email), a new session id,
 *   `303` to `/dashboard`.
 *
 * What the example does besides and this does not: request logging
 * (off in the benchmark), metrics, compression and the static files (not
 * reached by the benchmark's requests), the per-address failure budget,
 * the form schema, `returnTo`, device binding, session generations.
 *
 * @module
 */
import { Hono } from "hono";
import { getSignedCookie, setSignedCookie } from "hono/cookie";
import { csrf } from "hono/csrf";
import { etag } from "hono/etag";
import { html } from "hono/html";
import { requestId } from "hono/request-id";
import { NONCE, secureHeaders } from "hono/secure-headers";
import bcrypt from "bcrypt";

interface User {
  id: number;
  email: string;
  password: string;
  name: string;
  role: string;
  emailVerified?: boolean;
  createdAt: Date;
}

interface SessionData {
  userId?: number;
  notice?: string;
}

const MAX_AGE = 604800;
const LOGIN_LIMIT = 5;
const LOGIN_WINDOW_MS = 15 * 60 * 1000;

/** Creates `count` users `user<i>@example.com` / `password-<i>` in `kv`. */
export async function seedHonoUsers(
  kv: Deno.Kv,
  count: number,
  cost: number,
): Promise<void> {
  for (let id = 1; id <= count; id++) {
    const user: User = {
      id,
      email: `user${id - 1}@example.com`,
      password: await bcrypt.hash(`password-${id - 1}`, cost),
      name: `User ${id - 1}`,
      role: "user",
      createdAt: new Date(),
    };
    await kv.atomic().set(["users", id], user).set(
      ["users_by_email", user.email],
      id,
    ).commit();
  }
}

function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_");
}

/** The Hono app on `kv`. */
export async function honoAuthApp(
  options: { kv: Deno.Kv; secret: string; cost: number },
): Promise<Hono> {
  const { kv, secret } = options;
  const dummy: string = await bcrypt.hash(crypto.randomUUID(), options.cost);
  const app = new Hono<{
    Variables: {
      sid: string | undefined;
      session: SessionData;
      user: User | null;
    };
  }>();
  app.use(requestId());
  app.use(secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'", NONCE],
      scriptSrc: [NONCE],
      connectSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      baseUri: ["'none'"],
      frameAncestors: ["'none'"],
    },
  }));
  app.use(etag());
  app.use(csrf());
  app.use(async (c, next) => {
    const sid = await getSignedCookie(c, secret, "session") || undefined;
    const data = sid === undefined
      ? null
      : (await kv.get<SessionData>(["sessions", sid])).value;
    const session = data ?? {};
    c.set("sid", data === null ? undefined : sid);
    c.set("session", session);
    c.set(
      "user",
      session.userId === undefined
        ? null
        : (await kv.get<User>(["users", session.userId])).value,
    );
    await next();
  });

  app.get("/dashboard", (c) => {
    const user = c.get("user");
    if (user === null) return c.redirect("/auth/login", 303);
    return c.html(dashboardPage(user));
  });

  app.post("/auth/login", async (c) => {
    const form = await c.req.parseBody();
    const email = String(form.email ?? "").trim();
    const password = String(form.password ?? "");
    const attemptsKey = ["login_attempts", email.toLowerCase()];
    const attempts = (await kv.get<number>(attemptsKey)).value ?? 0;
    if (attempts >= LOGIN_LIMIT) {
      c.header("Retry-After", String(LOGIN_WINDOW_MS / 1000));
      return c.text("Too many login attempts. Try again in 15 minutes.", 429);
    }
    await kv.set(attemptsKey, attempts + 1, { expireIn: LOGIN_WINDOW_MS });
    const id = (await kv.get<number>(["users_by_email", email])).value;
    const user = id === null ? null : (await kv.get<User>(["users", id])).value;
    const match: boolean = await bcrypt.compare(
      password,
      user?.password ?? dummy,
    );
    if (user === null || !match) {
      return c.redirect("/auth/login", 303);
    }
    await kv.delete(attemptsKey);
    // A new id at sign-in (no fixation): the old record goes.
    const old = c.get("sid");
    if (old !== undefined) await kv.delete(["sessions", old]);
    const sid = newId();
    await kv.set(["sessions", sid], { userId: user.id } satisfies SessionData, {
      expireIn: MAX_AGE * 1000,
    });
    await setSignedCookie(c, "session", sid, secret, {
      httpOnly: true,
      sameSite: "Lax",
      path: "/",
      maxAge: MAX_AGE,
    });
    return c.redirect("/dashboard", 303);
  });
  return app as unknown as Hono;
}

function dashboardPage(user: User) {
  const reminder = user.emailVerified ? null : html`
    <section class="card" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify your email</h2>
      <p>We sent a link to <strong>${user
        .email}</strong>: open it within 24 hours to verify your address. No mail? Check the spam folder, or send a new link.</p>
      <form method="post" action="/email/verify">
        <button type="submit" class="secondary">Send again</button>
      </form>
    </section>
  `;
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Dashboard · fetchkit auth example</title>
        <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/assets/style.css">
      </head>
      <body>
        <header class="signed-in">
          <a class="brand" href="/">fetchkit auth</a>
          <nav aria-label="Main">
            <a href="/dashboard" aria-current="page">Dashboard</a>
            <a href="/profile">Profile</a>
            <a href="/profile/security">Security</a>
          </nav>
          <div class="account">
            <span
              class="who"><span class="who-label">Signed in as </span><strong>${user
                .name}</strong></span>
            <form method="post" action="/auth/logout">
              <button type="submit" class="link">Log out</button>
            </form>
          </div>
        </header>
        <main>
          <h1>Dashboard</h1>
          <p>Hello, <strong>${user
            .name}</strong>. You are signed in as <code>${user
            .email}</code>.</p>
    <p>Your role: <span class="role">${user.role}</span></p>${reminder}
        </main>
      </body>
    </html>
  `;
}
