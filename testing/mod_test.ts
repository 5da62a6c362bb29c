// createTestClient() against real routers: sessions over the cookie jar,
// csrf(), redirects as the Fetch standard follows them, bodies, route
// targets. Portable: runs on Node and Bun through _tools/runtimes.
import assert from "node:assert/strict";
import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import { formData } from "@fetchkit/toolkit/form-data-middleware";
import { csrf } from "@fetchkit/toolkit/csrf-middleware";
import { type Session, session } from "@fetchkit/toolkit/session-middleware";
import { createCookieSessionStorage } from "@fetchkit/toolkit/session/cookie-storage";
import { redirect } from "@fetchkit/toolkit/response/redirect";
import { createHtmlResponse } from "@fetchkit/toolkit/response/html";
import { createTestClient } from "@fetchkit/toolkit/testing";

const SECRET = "x".repeat(40);
const UserSession = createContextKey<Session<{ name: string }>>();

function sessionApp(secure: boolean) {
  const storage = createCookieSessionStorage({
    cookie: { name: secure ? "__Host-s" : "s", secrets: [SECRET], secure },
  });
  const routes = route({
    home: { method: "GET", pattern: "/" },
    login: form("login"),
    logout: { method: "POST", pattern: "/logout" },
  });
  const router = createRouter({
    middleware: [csrf(), session(UserSession, storage), formData()],
  });
  router.map(routes.home, ({ get }) => {
    const name = get(UserSession)!.get("name");
    return createHtmlResponse(name ? `<p>Hello, ${name}</p>` : "<p>Guest</p>");
  });
  router.map(routes.login, {
    actions: {
      index: () => createHtmlResponse("<form method=post></form>"),
      action: ({ get }) => {
        get(UserSession)!.set("name", String(get(FormData)!.get("name")));
        return redirect(routes.home.href(), 303);
      },
    },
  });
  router.map(routes.logout, ({ get }) => {
    get(UserSession)!.destroy();
    return redirect("/", 303);
  });
  return { router, routes };
}

Deno.test("createTestClient: a session kept in the jar across requests, a csrf() app accepts its forms", async () => {
  const { router, routes } = sessionApp(false);
  const client = createTestClient(router);
  assert.equal(await client.html(routes.home), "<p>Guest</p>");

  const login = await client.post(routes.login, { form: { name: "Ada" } });
  assert.equal(login.status, 303, "csrf() let the same-origin form through");
  assert.ok(client.cookies.get("s"), "the session cookie is in the jar");
  assert.equal(await client.html("/"), "<p>Hello, Ada</p>");

  const out = await client.post(routes.logout, { redirect: "follow" });
  assert.equal(await out.text(), "<p>Guest</p>");
  assert.equal(client.cookies.get("s"), undefined, "Max-Age=0 removed it");
});

Deno.test("createTestClient: a cross-site post is one header away, and csrf() refuses it", async () => {
  const { router, routes } = sessionApp(false);
  const client = createTestClient(router);
  const attack = await client.post(routes.login, {
    form: { name: "Mallory" },
    headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.test" },
  });
  assert.equal(attack.status, 403);
  // The headers a browser sends for its own form, seen by the app.
  const seen: Record<string, string | null>[] = [];
  const echo = createRouter();
  echo.post("/x", ({ headers }) => {
    seen.push({
      origin: headers.get("origin"),
      site: headers.get("sec-fetch-site"),
    });
    return new Response("ok");
  });
  echo.get("/x", ({ headers }) => {
    seen.push({
      origin: headers.get("origin"),
      site: headers.get("sec-fetch-site"),
    });
    return new Response("ok");
  });
  const other = createTestClient(echo, { origin: "https://app.test:8443" });
  await other.post("/x");
  await other.get("/x");
  assert.deepEqual(seen, [
    { origin: "https://app.test:8443", site: "same-origin" },
    { origin: null, site: "same-origin" },
  ]);
});

Deno.test("createTestClient: Secure session cookies only on an https: origin", async () => {
  const { router, routes } = sessionApp(true);
  const plain = createTestClient(router);
  await plain.post(routes.login, { form: { name: "Ada" } });
  assert.equal(plain.cookies.get("__Host-s"), undefined, "refused over http:");
  assert.equal(await plain.html("/"), "<p>Guest</p>");

  const secure = createTestClient(router, { origin: "https://app.test" });
  await secure.post(routes.login, { form: { name: "Ada" } });
  assert.ok(secure.cookies.get("__Host-s"));
  assert.equal(await secure.html("/"), "<p>Hello, Ada</p>");
});

/** An app that answers each redirect status, and echoes what reached it. */
function redirectApp() {
  const router = createRouter();
  for (const status of [301, 302, 303, 307, 308]) {
    router.any(
      `/r${status}`,
      () =>
        new Response(null, {
          status,
          headers: { Location: "/echo?from=" + status },
        }),
    );
  }
  router.any("/echo", async ({ request, url }) =>
    Response.json({
      method: request.method,
      from: url.searchParams.get("from"),
      type: request.headers.get("content-type"),
      body: request.body === null ? null : await request.text(),
    }));
  router.get("/loop", () => redirect("/loop"));
  router.get("/away", () => redirect("https://elsewhere.test/"));
  router.get("/hop", () => redirect("/r307"));
  return router;
}

Deno.test("createTestClient: redirects followed as the Fetch standard says", async () => {
  const client = createTestClient(redirectApp(), { redirect: "follow" });
  const echo = async (status: number, method = "POST") => {
    const response = await client.fetch(`/r${status}`, {
      method,
      body: method === "GET" ? undefined : "payload",
      headers: { "content-type": "text/plain" },
    });
    assert.equal(response.redirected, true);
    assert.equal(response.url, `http://localhost/echo?from=${status}`);
    return await response.json();
  };
  // 303, and 301/302 after POST: GET without the body or its headers.
  for (const status of [301, 302, 303]) {
    assert.deepEqual(await echo(status), {
      method: "GET",
      from: String(status),
      type: null,
      body: null,
    });
  }
  // 307 and 308 repeat the method and body.
  for (const status of [307, 308]) {
    assert.deepEqual(await echo(status), {
      method: "POST",
      from: String(status),
      type: "text/plain",
      body: "payload",
    });
  }
  // 301 after PUT keeps PUT (only POST turns into GET); 303 after PUT is GET.
  assert.equal((await echo(301, "PUT")).method, "PUT");
  assert.equal((await echo(303, "PUT")).method, "GET");
  // A stream body is kept as bytes, to send again.
  const streamed = await client.fetch("/r308", {
    method: "POST",
    body: new Blob(["streamed"]).stream(),
  });
  assert.equal((await streamed.json()).body, "streamed");
  // Through two hops, a 307 after a GET.
  assert.equal((await (await client.get("/hop")).json()).from, "307");
});

Deno.test("createTestClient: manual by default; a loop stops at 20; another origin is not followed", async () => {
  const client = createTestClient(redirectApp());
  const manual = await client.post("/r303");
  assert.equal(manual.status, 303);
  assert.equal(manual.headers.get("location"), "/echo?from=303");
  assert.equal(manual.redirected, false);
  assert.equal(manual.url, "http://localhost/r303");

  await assert.rejects(
    client.get("/loop", { redirect: "follow" }),
    /Too many redirects: more than 20/,
  );
  const away = await client.get("/away", { redirect: "follow" });
  assert.equal(away.status, 302, "the app cannot answer for another origin");
  assert.equal(away.headers.get("location"), "https://elsewhere.test/");
});

Deno.test("createTestClient: form, json and multipart bodies; a query; one body at most", async () => {
  const router = createRouter({ middleware: [formData()] });
  router.post("/form", ({ get, request }) =>
    Response.json({
      type: request.headers.get("content-type"),
      tags: get(FormData)!.getAll("tag"),
      file: (get(FormData)!.get("file") as File | null)?.name ?? null,
    }));
  router.put(
    "/json",
    async ({ request, url }) =>
      Response.json({ body: await request.json(), q: url.search }),
  );
  const client = createTestClient(router);

  const urlencoded = await (await client.post("/form", {
    form: { tag: ["a", "b"], skipped: undefined },
  })).json();
  assert.match(urlencoded.type, /^application\/x-www-form-urlencoded/);
  assert.deepEqual(urlencoded.tags, ["a", "b"]);

  const multipart = await (await client.post("/form", {
    multipart: { tag: "c", file: new File(["hi"], "hi.txt") },
  })).json();
  assert.match(multipart.type, /^multipart\/form-data; boundary=/);
  assert.deepEqual([multipart.tags, multipart.file], [["c"], "hi.txt"]);

  const json = await (await client.put("/json", {
    json: { a: 1 },
    query: { page: 2, tag: ["x", "y"] },
  })).json();
  assert.deepEqual(json, { body: { a: 1 }, q: "?page=2&tag=x&tag=y" });

  await assert.rejects(
    client.post("/form", { form: {}, json: {} }),
    /Give one body, not form and json/,
  );
  await assert.rejects(
    async () => await client.post("/form", { form: { file: new Blob(["x"]) } }),
    /Field "file" is a file: send files with \{ multipart \}/,
  );
});

Deno.test("createTestClient: routes as targets, params filled; a group gives the route of the call's method", async () => {
  const routes = route({
    posts: resources("posts", { only: ["show", "update", "index"] }),
    contact: form("contact"),
  });
  const router = createRouter({ middleware: [formData()] });
  router.map(routes, {
    actions: {
      posts: {
        actions: {
          index: () => new Response("index"),
          show: ({ params }) => new Response(`show ${params.id}`),
          update: ({ params }) => new Response(`update ${params.id}`),
        },
      },
      contact: {
        actions: {
          index: () => createHtmlResponse("<form></form>"),
          action: ({ get }) => new Response(`sent ${get(FormData)!.get("m")}`),
        },
      },
    },
  });
  const client = createTestClient(router);
  assert.equal(
    await (await client.get(routes.posts.show, { params: { id: "a b" } }))
      .text(),
    "show a b",
  );
  assert.equal(
    await (await client.put(routes.posts.update, { params: { id: 7 } })).text(),
    "update 7",
  );
  assert.equal(await client.html(routes.contact), "<form></form>");
  assert.equal(
    await (await client.post(routes.contact, { form: { m: "hi" } })).text(),
    "sent hi",
  );
  // A group with two GET routes cannot choose.
  await assert.rejects(
    (client.get as (t: unknown) => Promise<Response>)(routes.posts),
    /2 routes for GET in the group given \(index, show\): give the route itself/,
  );
});

Deno.test("createTestClient: html() throws for a page that is not HTML, naming status and type", async () => {
  const router = createRouter();
  router.get("/data", () => Response.json({ a: 1 }));
  const client = createTestClient(router);
  await assert.rejects(
    client.html("/data"),
    /GET \/data answered 200 with Content-Type application\/json[^,]*, not HTML/,
  );
  await assert.rejects(
    client.html("/missing"),
    /GET \/missing answered 404 with Content-Type text\/plain/,
  );
});

Deno.test("createTestClient: a fetch handler function, a shared jar, remoteAddr and default headers", async () => {
  const seen: string[] = [];
  const handler = (
    request: Request,
    info: { remoteAddr: { hostname: string } },
  ) => {
    seen.push(`${info.remoteAddr.hostname} ${request.headers.get("x-test")}`);
    return new Response("ok", {
      headers: { "Set-Cookie": `visited=${new URL(request.url).port}; Path=/` },
    });
  };
  const a = createTestClient(handler, {
    origin: "http://127.0.0.1:8001",
    remoteAddr: "10.0.0.7",
    headers: { "x-test": "one" },
  });
  const b = createTestClient(handler, {
    origin: "http://127.0.0.1:8002",
    cookies: a.cookies,
  });
  await a.get("/");
  // Cookies do not care for ports: b sends what a received.
  assert.equal(
    b.cookies.cookieHeader("http://127.0.0.1:8002/"),
    "visited=8001",
  );
  await b.get("/");
  assert.equal(a.cookies.get("visited"), "8002");
  assert.deepEqual(seen, ["10.0.0.7 one", "127.0.0.1 null"]);
  assert.throws(
    () => createTestClient(handler, { origin: "ftp://x" }),
    /must be http: or https:/,
  );
  assert.throws(
    () => createTestClient({} as never),
    /give a router \(anything with a fetch method\) or a fetch handler function/,
  );
});

Deno.test("createTestClient: Content-Length for bodies of known length, as a browser sends it", async () => {
  const seen: (string | null)[] = [];
  const client = createTestClient(async (request: Request) => {
    seen.push(request.headers.get("content-length"));
    const bytes = new Uint8Array(await request.arrayBuffer());
    return new Response(
      `${bytes.byteLength} ${request.headers.get("content-type")}`,
    );
  });
  const json = await client.post("/", { json: { name: "ada" } });
  assert.equal(await json.text(), "14 application/json");
  const form = await client.post("/", { form: { a: "1", b: "é" } });
  assert.equal(
    await form.text(),
    "12 application/x-www-form-urlencoded;charset=UTF-8",
  );
  await (await client.put("/", { body: "hello" })).text();
  await (await client.post("/", { body: new Uint8Array(7) })).text();
  const multipart = await client.post("/", {
    multipart: { file: new File(["x".repeat(100)], "a.txt") },
  });
  const text = await multipart.text();
  const [length, type] = [
    text.slice(0, text.indexOf(" ")),
    text.slice(text.indexOf(" ") + 1),
  ];
  assert.match(type, /^multipart\/form-data; ?boundary=/);
  assert.deepEqual(seen, ["14", "12", "5", "7", length]);
  // A stream has no known length: none sent, as a browser does.
  const stream = new Blob(["abc"]).stream();
  await (await client.post("/", { body: stream })).text();
  assert.equal(seen.at(-1), null);
});

Deno.test("createTestClient: bodyLimit() answers 413 for a declared length over the limit", async () => {
  const { bodyLimit } = await import("@fetchkit/toolkit/body-limit-middleware");
  const router = createRouter({ middleware: [bodyLimit({ maxBytes: 10 })] });
  const routes = route({ upload: { method: "POST", pattern: "/" } });
  router.map(routes.upload, () => new Response("taken"));
  const client = createTestClient(router);
  const response = await client.post("/", { json: { text: "x".repeat(50) } });
  assert.equal(response.status, 413);
  await response.body?.cancel();
});

Deno.test("createTestClient: signal aborts the call while the handler has not answered", async () => {
  let handlerSaw: AbortSignal | undefined;
  const client = createTestClient((request: Request) => {
    handlerSaw = request.signal;
    return new Promise<Response>(() => {});
  });
  const controller = new AbortController();
  const call = client.get("/", { signal: controller.signal });
  setTimeout(() => controller.abort(new Error("gave up")), 20);
  await assert.rejects(call, /gave up/);
  assert.equal(handlerSaw?.aborted, true);
  // An already aborted signal rejects at once.
  await assert.rejects(
    client.get("/", { signal: AbortSignal.abort(new Error("before")) }),
    /before/,
  );
});
