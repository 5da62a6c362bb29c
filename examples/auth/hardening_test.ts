// The production middleware in the app: security headers and a CSP on
// every page, a request id on every response and in the log line with the
// client address, and form problems shown beside their fields.
import assert from "node:assert/strict";
import { Client, read, testApp } from "./_test_app.ts";

Deno.test("every page gets the security headers and a CSP with a fresh nonce", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  const nonces = new Set<string>();
  for (const path of ["/", "/auth/login", "/nope", "/dashboard"]) {
    const response = await client.get(path);
    await response.body?.cancel();
    const headers = response.headers;
    assert.equal(headers.get("x-content-type-options"), "nosniff", path);
    assert.equal(headers.get("x-frame-options"), "DENY", path);
    assert.equal(
      headers.get("referrer-policy"),
      "strict-origin-when-cross-origin",
    );
    const csp = headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'none'/, path);
    assert.match(csp, /form-action 'self'/, path);
    assert.match(csp, /frame-ancestors 'none'/, path);
    if (response.status === 302) {
      // A redirect (to the login page) has no HTML to use a nonce.
      assert.doesNotMatch(csp, /nonce/, path);
      assert.match(csp, /style-src 'self'/, path);
      continue;
    }
    assert.match(csp, /style-src 'self' 'nonce-[A-Za-z0-9+/=]+'/, path);
    nonces.add(csp.match(/'nonce-([^']+)'/)![1]);
  }
  assert.equal(nonces.size, 3, "a new nonce per page");
  // A refused login (429) and a refused form (422) get them too.
  for (let i = 0; i < 6; i++) {
    const response = await client.login("admin@example.com", "wrong");
    await response.body?.cancel();
    if (i === 5) {
      assert.equal(response.status, 429);
      assert.ok(response.headers.has("content-security-policy"));
      assert.ok(response.headers.has("x-request-id"));
    }
  }
  close();
});

Deno.test("no page has an inline script or style the CSP would block", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.register("ada@example.com");
  const bodies = [];
  for (const path of ["/", "/dashboard", "/profile", "/nope"]) {
    bodies.push((await read(await client.get(path))).body);
  }
  const guest = new Client(app);
  bodies.push((await read(await guest.get("/auth/login"))).body);
  bodies.push(
    (await read(await guest.post("/auth/register", { name: "" }))).body,
  );
  for (const body of bodies) {
    assert.doesNotMatch(body, /<script(?![^>]*\snonce=)/);
    assert.doesNotMatch(body, /<style(?![^>]*\snonce=)/);
    assert.doesNotMatch(body, /\sstyle=/);
    assert.doesNotMatch(body, /\son[a-z]+=/);
  }
  close();
});

Deno.test("each response has a request id of the server's own (a client's is ignored), and the log line has it with the client address", async () => {
  const lines: string[] = [];
  const { app, close } = await testApp({ log: (line) => lines.push(line) });
  const client = new Client(app, "192.0.2.44");
  const first = await client.get("/");
  await first.body?.cancel();
  const id = first.headers.get("x-request-id") ?? "";
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.match(
    lines.at(-1)!,
    new RegExp(`^\\[[^\\]]+\\] 192\\.0\\.2\\.44 ${id} GET / 200 `),
  );
  // No proxy sets the header here: a client's own id (here, the id of
  // the first request, reused) is ignored, and the server makes a new one.
  const second = await client.request("/nope", {
    headers: { "x-request-id": id },
  });
  await second.body?.cancel();
  const own = second.headers.get("x-request-id") ?? "";
  assert.match(own, /^[0-9a-f-]{36}$/);
  assert.notEqual(own, id);
  assert.match(
    lines.at(-1)!,
    new RegExp(` 192\\.0\\.2\\.44 ${own} GET /nope 404 `),
  );
  assert.equal(lines.filter((line) => line.includes(id)).length, 1);
  close();
});

Deno.test("register: every problem is shown beside its field, the name and email kept, never the password", async () => {
  const { app, close } = await testApp();
  const response = await read(
    await new Client(app).post("/auth/register", {
      name: "  Ada  ",
      email: "not-an-email",
      password: "short",
    }),
  );
  assert.equal(response.status, 422);
  const body = response.body;
  // The email's message follows the email input, linked to it; the
  // first invalid field has the focus (autofocus), no other field does.
  assert.match(
    body,
    /<input id="email"[^>]*value="not-an-email"\s+aria-invalid="true" aria-describedby="email-error" autofocus\s*>\s*<p class="field-error" id="email-error">Please enter a valid email address\.<\/p>/,
  );
  assert.match(
    body,
    /<input id="password"[^>]*\s+aria-invalid="true" aria-describedby="password-error"\s*>\s*<p class="field-error" id="password-error">Your password must be at least 8 characters\.<\/p>/,
  );
  assert.equal(body.match(/autofocus/g)?.length, 1);
  assert.match(body, /<input id="name"[^>]*value="Ada">/, "trimmed, valid");
  assert.doesNotMatch(body, /id="name"[^>]*aria-invalid/);
  assert.doesNotMatch(body, /short/, "the password is never sent back");
  close();
});

Deno.test("login: a refused form shows the problem beside its field, keeps the email and returnTo", async () => {
  const { app, close } = await testApp();
  const email = "a".repeat(250) + "@x.example";
  const response = await read(
    await new Client(app).login(email, "secret\0", "?returnTo=%2Fprofile"),
  );
  assert.equal(response.status, 422);
  assert.match(
    response.body,
    /aria-describedby="email-error" autofocus\s*>\s*<p class="field-error" id="email-error">An email address has at most 254 characters\.<\/p>/,
  );
  assert.equal(response.body.match(/autofocus/g)?.length, 1);
  assert.match(
    response.body,
    /<p class="field-error" id="password-error">Your password cannot contain a NUL character\.<\/p>/,
  );
  assert.match(response.body, new RegExp(`value="${email.slice(0, 254)}"`));
  assert.match(response.body, /action="\/auth\/login\?returnTo=%2Fprofile"/);
  assert.doesNotMatch(response.body, /secret/);
  close();
});

Deno.test("the messages stay: `Invalid email or password` and `Email already in use` are flashed as before", async () => {
  const { app, close } = await testApp();
  const client = new Client(app);
  await client.login("admin@example.com", "wrong password");
  assert.match(
    (await read(await client.get("/auth/login"))).body,
    /<p class="flash error" role="alert">Invalid email or password<\/p>/,
  );
  await client.register("admin@example.com");
  assert.match(
    (await read(await client.get("/auth/register"))).body,
    /<p class="flash error" role="alert">Email already in use<\/p>/,
  );
  close();
});

Deno.test("login: a field sent twice is refused beside it in plain words, not the schema's type names", async () => {
  const { app, close } = await testApp();
  const response = await read(
    await app.fetch(
      new Request("http://localhost/auth/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: "email=a%40example.com&email=b%40example.com&password=whatever1",
      }),
    ),
  );
  assert.equal(response.status, 422);
  assert.match(
    response.body,
    /<p class="field-error" id="email-error">Send this field once\.<\/p>/,
  );
  assert.doesNotMatch(response.body, /expected string/);
  close();
});
