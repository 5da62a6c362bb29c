// The app's state tables (controllers/auth.ts), row by row, through app.fetch (in-process).
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";

Deno.test("GET / is a public page", async () => {
  const { app, close } = await testApp();
  const { status, body } = await read(await new Client(app).get("/"));
  assert.equal(status, 200);
  assert.match(body, /<main>/);
  assert.match(body, /href="\/auth\/login"/);
  close();
});

Deno.test("register: a new email creates the user, signs in, renews the id, → /dashboard", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.get("/auth/register");
  const before = client.cookies.get("session");
  const response = await read(await client.register("ada@example.com"));
  assert.equal(response.status, 303);
  assert.equal(response.location, "/dashboard");
  assert.notEqual(client.cookies.get("session"), before);
  const dashboard = await read(await client.get("/dashboard"));
  assert.equal(dashboard.status, 200);
  assert.match(dashboard.body, /Ada/);
  assert.match(dashboard.body, /ada@example\.com/);
  close();
});

Deno.test("register: a used email, in any case, flashes `Email already in use` once", async () => {
  const { app, close } = await testApp();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  const response = await read(await client.register("ADA@Example.com"));
  assert.equal(response.status, 303);
  assert.equal(response.location, "/auth/register");
  const page = await read(await client.get("/auth/register"));
  assert.match(page.body, /Email already in use/);
  assert.match(page.body, /value="ADA@Example\.com"/, "the email is kept");
  const again = await read(await client.get("/auth/register"));
  assert.doesNotMatch(again.body, /Email already in use/, "flash shown once");
  assert.equal((await read(await client.get("/dashboard"))).status, 302);
  close();
});

Deno.test("register: invalid input gets the form again with 422 and the problem, nothing stored", async () => {
  const { app, kv, close } = await testApp();
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /enter your name/],
    [
      { name: "Ada", email: "not-an-email", password: "longenough" },
      /valid email/,
    ],
    [{ name: "Ada", email: "a@b", password: "longenough" }, /valid email/],
    [{ name: "Ada", email: "a@b.example", password: "short" }, /at least 8/],
    [
      { name: " ", email: "a@b.example", password: "longenough" },
      /enter your name/,
    ],
    [
      { name: "Ada", email: "a@b.example", password: "é".repeat(40) },
      /at most 72 bytes/,
    ],
    [
      { name: "Ada", email: "a@b.example", password: "\0".repeat(10) },
      /cannot contain a NUL/,
    ],
    [
      { name: "Ada", email: "a@b.example", password: "longenough\0x" },
      /cannot contain a NUL/,
    ],
    [
      { name: "A".repeat(101), email: "a@b.example", password: "longenough" },
      /name can be at most 100 characters/,
    ],
    [
      {
        name: "Ada",
        email: "a".repeat(250) + "@b.example",
        password: "longenough",
      },
      /valid email/,
    ],
  ];
  for (const [form, message] of cases) {
    const client = new Client(app);
    const response = await read(await client.post("/auth/register", form));
    assert.equal(response.status, 422, JSON.stringify(form));
    assert.match(response.body, message);
    assert.equal(client.cookies.size, 0, "no session for a refused form");
  }
  const page = await read(
    await new Client(app).post("/auth/register", {
      name: "Ada <b>" + "x".repeat(200),
      email: "ada@example.com",
      password: "longenough",
    }),
  );
  assert.match(page.body, /value="Ada &lt;b&gt;x{93}"/, "echo bounded to 100");
  assert.match(page.body, /value="ada@example\.com"/);
  for await (const entry of kv.list({ prefix: [] })) {
    assert.ok(
      entry.key[0] !== "sessions" && entry.key[0] !== "users_by_email" ||
        entry.key[1] === "admin@example.com",
      `nothing stored: ${String(entry.key)}`,
    );
  }
  close();
});

Deno.test("login: right password renews the id (old one deleted) and goes to /dashboard", async () => {
  const { app, kv, close } = await testApp();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  await client.get("/auth/login"); // a guest session
  await client.login("x@example.com", "wrong-password"); // stores a flash
  const before = client.cookies.get("session")!;
  const countSessions = async () => {
    let n = 0;
    // Session data only: the devices index lives under ["sessions", "by_user"].
    for await (const { key } of kv.list({ prefix: ["sessions"] })) {
      if (key[1] !== "by_user") n++;
    }
    return n;
  };
  const sessionsBefore = await countSessions();
  const response = await read(
    await client.login("ADA@example.com", "correct horse"),
  );
  assert.equal(response.status, 303);
  assert.equal(response.location, "/dashboard");
  const after = client.cookies.get("session")!;
  assert.notEqual(after, before);
  // The old id's data is gone from KV: replaying it is a fresh session.
  assert.equal(await countSessions(), sessionsBefore);
  const stale = new Client(app);
  stale.cookies.set("session", before);
  assert.equal((await stale.get("/dashboard")).status, 302);
  assert.equal((await client.get("/dashboard")).status, 200);
  close();
});

Deno.test("login: wrong password or unknown email flashes `Invalid email or password`, keeps returnTo", async () => {
  const { app, close } = await testApp();
  await new Client(app).register("ada@example.com");
  for (
    const [email, password] of [["ada@example.com", "wrong password"], [
      "nobody@example.com",
      "correct horse",
    ], ["", ""]]
  ) {
    const client = new Client(app);
    const response = await read(
      await client.login(email, password, "?returnTo=%2Fprofile%3Ftab%3D1"),
    );
    assert.equal(response.status, 303);
    assert.equal(
      response.location,
      "/auth/login?returnTo=%2Fprofile%3Ftab%3D1",
    );
    const page = await read(await client.get(response.location!));
    assert.match(page.body, /Invalid email or password/);
    assert.match(
      page.body,
      /action="\/auth\/login\?returnTo=%2Fprofile%3Ftab%3D1"/,
    );
    assert.equal((await client.get("/profile")).status, 302, "still a guest");
  }
  close();
});

Deno.test("login with returnTo lands there", async () => {
  const { app, close } = await testApp();
  await new Client(app).register("ada@example.com");
  const client = new Client(app);
  const guarded = await read(await client.get("/profile?tab=1"));
  assert.equal(guarded.status, 302);
  assert.equal(guarded.location, "/auth/login?returnTo=%2Fprofile%3Ftab%3D1");
  const page = await read(await client.get(guarded.location!));
  assert.match(
    page.body,
    /action="\/auth\/login\?returnTo=%2Fprofile%3Ftab%3D1"/,
  );
  const response = await read(
    await client.login(
      "ada@example.com",
      "correct horse",
      "?returnTo=%2Fprofile%3Ftab%3D1",
    ),
  );
  assert.equal(response.location, "/profile?tab=1");
  close();
});

Deno.test("logout: POST deletes the session's data and id → /auth/login, which says so once", async () => {
  const { app, kv, close } = await testApp();
  const client = new Client(app);
  await client.register("ada@example.com");
  const cookie = client.cookies.get("session")!;
  const response = await client.post("/auth/logout");
  assert.equal(response.status, 303);
  assert.equal(response.headers.get("location"), "/auth/login");
  // What is left is a guest session holding the notice, for ten minutes.
  assert.match(response.headers.get("set-cookie")!, /Max-Age=600/);
  assert.notEqual(client.cookies.get("session"), cookie);
  const left: unknown[] = [];
  for await (const entry of kv.list({ prefix: ["sessions"] })) {
    if (entry.key[1] !== "by_user") left.push(entry.value);
  }
  assert.equal(left.length, 1);
  assert.doesNotMatch(JSON.stringify(left), /userId/);
  const login = await read(await client.get("/auth/login"));
  assert.match(login.body, /role="status">You have been signed out\.</);
  assert.doesNotMatch(
    (await read(await client.get("/auth/login"))).body,
    /signed out/,
    "shown once",
  );
  const replay = new Client(app);
  replay.cookies.set("session", cookie);
  assert.equal((await replay.get("/dashboard")).status, 302);
  // GET is not a way to log out.
  assert.equal((await new Client(app).get("/auth/logout")).status, 405);
  close();
});

Deno.test("requireAuth: guests go to login with returnTo; users pass", async () => {
  const { app, close } = await testApp();
  const guest = new Client(app);
  for (const path of ["/dashboard", "/profile"]) {
    const response = await guest.get(path);
    assert.equal(response.status, 302);
    assert.equal(
      response.headers.get("location"),
      `/auth/login?returnTo=${encodeURIComponent(path)}`,
    );
  }
  const user = new Client(app);
  await user.register("ada@example.com", "correct horse", "Ada <Lovelace>");
  const profile = await read(await user.get("/profile"));
  assert.equal(profile.status, 200);
  assert.match(profile.body, /Ada &lt;Lovelace&gt;/, "escaped");
  assert.match(profile.body, /ada@example\.com/);
  close();
});

Deno.test("requireGuest: signed-in users are sent to /dashboard", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.register("ada@example.com");
  for (const path of ["/auth/login", "/auth/register"]) {
    const response = await client.get(path);
    assert.equal(response.status, 302);
    assert.equal(response.headers.get("location"), "/dashboard");
  }
  close();
});

Deno.test("requireRole: guests → /auth/login without returnTo; wrong role → 403 Forbidden", async () => {
  const { app, close } = await testApp();
  const guest = new Client(app);
  for (const path of ["/admin/users", "/admin/settings"]) {
    const response = await guest.get(path);
    assert.equal(response.status, 302);
    assert.equal(response.headers.get("location"), "/auth/login");
  }
  const user = new Client(app);
  await user.register("ada@example.com");
  for (const path of ["/admin/users", "/admin/settings"]) {
    const response = await read(await user.get(path));
    assert.equal(response.status, 403);
    assert.equal(response.body, "Forbidden");
    // A browser gets the same status as a page, with the navigation.
    const page = await read(
      await user.request(path, { headers: { Accept: "text/html" } }),
    );
    assert.equal(page.status, 403);
    assert.match(page.body, /<h1>Forbidden<\/h1>/);
    assert.match(page.body, /Log out/);
  }
  close();
});

Deno.test("admin: lists users and changes a role with PUT through _method; moderators see settings only", async () => {
  const { app, close } = await testApp();
  const ada = new Client(app);
  await ada.register("ada@example.com");
  const admin = new Client(app);
  assert.equal(
    (await admin.login("admin@example.com", "admin-password")).status,
    303,
  );
  const list = await read(await admin.get("/admin/users"));
  assert.equal(list.status, 200);
  assert.match(list.body, /ada@example\.com/);
  assert.match(list.body, /name="_method" value="PUT"/);

  const id = list.body.match(/action="\/admin\/users\/(\d+)"/)![1];
  const changed = await read(
    await admin.post(`/admin/users/${id}`, {
      _method: "PUT",
      role: "moderator",
    }),
  );
  assert.equal(changed.status, 303);
  assert.equal(changed.location, "/admin/users");
  assert.match(
    (await read(await admin.get("/admin/users"))).body,
    /ada@example\.com is now moderator/,
  );

  assert.equal((await ada.get("/admin/settings")).status, 200);
  assert.equal((await ada.get("/admin/users")).status, 403);

  const unknown = await read(
    await admin.post("/admin/users/999", { _method: "PUT", role: "user" }),
  );
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body, "Not Found");
  await admin.post(`/admin/users/${id}`, { _method: "PUT", role: "superuser" });
  assert.match(
    (await read(await admin.get("/admin/users"))).body,
    /Unknown role &quot;superuser&quot;/,
  );
  // A long role is echoed in part; a huge one is refused before parsing.
  await admin.post(`/admin/users/${id}`, {
    _method: "PUT",
    role: "r".repeat(3000),
  });
  assert.match(
    (await read(await admin.get("/admin/users"))).body,
    /Unknown role &quot;r{20}…&quot;/,
  );
  const huge = await admin.post(`/admin/users/${id}`, {
    _method: "PUT",
    role: "r".repeat(70_000),
  });
  assert.equal(huge.status, 413);
  await huge.body?.cancel();
  // Without the override, POST is not a route here.
  assert.equal(
    (await admin.post(`/admin/users/${id}`, { role: "user" })).status,
    405,
  );
  close();
});

Deno.test("unknown paths get the 404 page", async () => {
  const { app, close } = await testApp();
  const response = await read(await new Client(app).get("/nope"));
  assert.equal(response.status, 404);
  assert.match(response.body, /Page not found/);
  close();
});

Deno.test("the stylesheet is served from /assets", async () => {
  const { app, close } = await testApp();
  const response = await new Client(app).get("/assets/style.css");
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type")!, /text\/css/);
  await response.body?.cancel();
  close();
});

Deno.test("CSRF: a cross-site POST is refused with 403 before anything happens", async () => {
  const { app, kv, close } = await testApp();
  const client = new Client(app);
  const response = await read(
    await client.request("/auth/register", {
      method: "POST",
      headers: {
        "sec-fetch-site": "cross-site",
        origin: "https://evil.example",
      },
      form: { email: "eve@example.com", password: "longenough", name: "Eve" },
    }),
  );
  assert.equal(response.status, 403);
  assert.equal(response.body, "Forbidden");
  assert.equal(
    (await kv.get(["users_by_email", "eve@example.com"])).value,
    null,
  );
  // An older browser without Sec-Fetch-Site, from another origin:
  const old = await client.request("/auth/logout", {
    method: "POST",
    headers: { "sec-fetch-site": "", origin: "https://evil.example" },
  });
  assert.equal(old.status, 403);
  close();
});

Deno.test("signed-cookie session storage works too (SESSION_STORAGE=cookie)", async () => {
  const { app, close } = await testApp({ storage: "cookie" });
  const client = new Client(app);
  await client.register("ada@example.com");
  assert.equal((await client.get("/dashboard")).status, 200);
  await client.post("/auth/logout");
  assert.equal((await client.get("/dashboard")).status, 302);
  close();
});

Deno.test("a browser gets a styled 405 page with a way back and the Allow header; other clients the plain text", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  const page = await read(
    await client.request("/auth/logout", { headers: { accept: "text/html" } }),
  );
  assert.equal(page.status, 405);
  assert.match(page.body, /<h1>Method not allowed<\/h1>/);
  assert.match(
    page.body,
    /<link rel="stylesheet" href="\/assets\/style\.css">/,
  );
  assert.match(page.body, /Go back <a href="\/">home<\/a>/);
  const headers = (await client.request("/auth/logout", {
    headers: { accept: "text/html" },
  })).headers;
  assert.equal(headers.get("allow"), "POST");
  const plain = await read(await client.get("/auth/logout"));
  assert.equal(plain.status, 405);
  assert.equal(plain.body, "Method Not Allowed");

  close();
});

Deno.test("a browser gets a styled 500 (a failing user store) and 503 (session store down)", async () => {
  const real = await Deno.openKv(":memory:");
  let failUsers = false;
  // The user store's reads fail on demand; everything else is real KV.
  const kv = new Proxy(real, {
    get(target, name) {
      if (name === "get") {
        return (key: Deno.KvKey) => {
          if (failUsers && key[0] === "users") {
            return Promise.reject(new Error("users are unreachable"));
          }
          return target.get(key);
        };
      }
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const { app } = await testApp({ kv });
  const client = new Client(app);
  await client.register("ada@example.com");
  const errors: unknown[] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  try {
    failUsers = true;
    const brokenResponse = await client.request("/dashboard", {
      headers: { accept: "text/html" },
    });
    // The error page has the security headers and a request id too.
    assert.ok(brokenResponse.headers.has("content-security-policy"));
    assert.ok(brokenResponse.headers.has("x-request-id"));
    const broken = await read(brokenResponse);
    assert.equal(broken.status, 500);
    assert.match(broken.body, /<h1>Something went wrong<\/h1>/);
    assert.match(broken.body, /href="\/">home<\/a>/);
    assert.doesNotMatch(broken.body, /unreachable/);
    const text = await read(await client.get("/dashboard"));
    assert.equal(text.status, 500);
    assert.equal(text.body, "Internal Server Error");
    assert.equal(errors.length, 2, "each error logged");
    assert.match(
      String((errors[0] as unknown[])[0]),
      new RegExp(
        `^Request ${brokenResponse.headers.get("x-request-id")} failed:`,
      ),
    );

    failUsers = false;
    real.close(); // the session store is gone too
    const down = await client.request("/dashboard", {
      headers: { accept: "text/html" },
    });
    assert.equal(down.status, 503);
    assert.ok(down.headers.get("retry-after"));
    assert.match(await down.text(), /<h1>Something went wrong<\/h1>/);
  } finally {
    console.error = consoleError;
  }
});

Deno.test('settings: an admin is "an admin"', async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.login("admin@example.com", "admin-password");
  const page = await read(await client.get("/admin/settings"));
  assert.match(page.body, /You are an <span class="role">admin<\/span>\./);
  close();
});

Deno.test("signed-in pages are no-store: after logout, Back cannot show the profile or dashboard from the cache", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.register("ada@example.com");
  const pages: Record<string, Response> = {};
  for (const path of ["/profile", "/dashboard", "/"]) {
    pages[path] = await client.get(path);
  }
  await client.post("/auth/logout");
  // What the browser kept of the pages it saw while signed in.
  for (const [path, response] of Object.entries(pages)) {
    assert.equal(response.status, 200, path);
    assert.match(await response.text(), /ada@example\.com|Ada/, path);
    assert.equal(response.headers.get("cache-control"), "no-store", path);
  }
  // Pages that do not depend on the session stay cacheable.
  const css = await client.get("/assets/style.css");
  assert.match(css.headers.get("cache-control") ?? "", /max-age=3600/);
  await css.body?.cancel();
  close();
});
