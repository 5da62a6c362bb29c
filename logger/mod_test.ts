import assert from "node:assert/strict";
import FakeTimers from "@sinonjs/fake-timers";
import {
  logger,
  type LoggerOptions,
} from "@fetchkit/toolkit/logger-middleware";
import { createRouter, RequestContext } from "@fetchkit/toolkit/fetch-router";
import { rawGet } from "../_tools/raw_http.ts";

// 2025-11-19T22:32:10Z, a Wednesday in winter time on both hemispheres' north.
const NOW = Date.UTC(2025, 10, 19, 22, 32, 10);

type Handler = (context: RequestContext) => Response | Promise<Response>;

/** Runs one request through a logger and returns the single line it logs. */
async function logLine(
  options: LoggerOptions,
  request: Request | string = "http://example.com/",
  handler: Handler = () => new Response("ok"),
): Promise<string> {
  const lines: string[] = [];
  const middleware = logger({ ...options, log: (line) => lines.push(line) });
  const context = new RequestContext(
    typeof request === "string" ? new Request(request) : request,
  );
  await middleware(context, async () => await handler(context));
  assert.equal(lines.length, 1);
  return lines[0];
}

function token(
  format: string,
  request?: Request | string,
  handler?: Handler,
): Promise<string> {
  return logLine({ format }, request, handler);
}

/** Runs `fn` with the clock at `now` and the time zone `tz`. */
async function at<T>(
  now: number,
  tz: string,
  fn: (clock: FakeTimers.Clock) => Promise<T>,
): Promise<T> {
  const previous = Deno.env.get("TZ");
  Deno.env.set("TZ", tz);
  const clock = FakeTimers.install({ now, toFake: ["Date", "performance"] });
  try {
    return await fn(clock);
  } finally {
    clock.uninstall();
    if (previous === undefined) Deno.env.delete("TZ");
    else Deno.env.set("TZ", previous);
  }
}

Deno.test("logger writes the default line", async () => {
  const line = await at(NOW, "America/Los_Angeles", () =>
    logLine(
      {},
      "http://example.com/users/123?tab=posts",
      () =>
        new Response("hello world", { headers: { "Content-Length": "11" } }),
    ));
  assert.equal(
    line,
    "[19/Nov/2025:14:32:10 -0800] GET /users/123?tab=posts 200 11",
  );
});

Deno.test("logger passes each line to console.log by default", async () => {
  const original = console.log;
  const lines: unknown[][] = [];
  console.log = (...args: unknown[]) => void lines.push(args);
  try {
    const middleware = logger({ format: "%method %pathname", colors: false });
    const context = new RequestContext(
      new Request("http://x/a", { method: "PUT" }),
    );
    await middleware(context, () => Promise.resolve(new Response()));
  } finally {
    console.log = original;
  }
  assert.deepEqual(lines, [["PUT /a"]]);
});

Deno.test("logger logs once, after the response is ready", async () => {
  const events: string[] = [];
  const middleware = logger({
    format: "%status",
    log: (line) => events.push(`log ${line}`),
  });
  const context = new RequestContext(new Request("http://x/"));
  const response = await middleware(context, async () => {
    events.push("handler");
    await Promise.resolve();
    events.push("handler done");
    return new Response(null, { status: 204 });
  });
  assert.equal(response?.status, 204);
  assert.deepEqual(events, ["handler", "handler done", "log 204"]);
});

Deno.test("%date is local time as dd/Mon/yyyy:HH:mm:ss ±zzzz", async () => {
  assert.equal(
    await at(NOW, "America/Los_Angeles", () => token("%date")),
    "19/Nov/2025:14:32:10 -0800",
  );
  // Half-hour offset east of UTC, and the day rolls over.
  assert.equal(
    await at(NOW, "Asia/Kolkata", () => token("%date")),
    "20/Nov/2025:04:02:10 +0530",
  );
  // Leading zeros in day, hour, minute and second; UTC prints +0000.
  assert.equal(
    await at(Date.UTC(2025, 0, 5, 3, 4, 5), "UTC", () => token("%date")),
    "05/Jan/2025:03:04:05 +0000",
  );
  // Summer time changes the offset.
  assert.equal(
    await at(
      Date.UTC(2025, 6, 1, 12, 0, 0),
      "Europe/Berlin",
      () => token("%date"),
    ),
    "01/Jul/2025:14:00:00 +0200",
  );
});

Deno.test("%date and %dateISO are the request's start time", async () => {
  const line = await at(
    NOW,
    "UTC",
    (clock) =>
      token("%date|%dateISO", undefined, () => {
        clock.tick(3000);
        return new Response();
      }),
  );
  assert.equal(line, "19/Nov/2025:22:32:10 +0000|2025-11-19T22:32:10.000Z");
});

Deno.test("%dateISO is ISO 8601 in UTC", async () => {
  assert.equal(
    await at(NOW + 123, "Asia/Tokyo", () => token("%dateISO")),
    "2025-11-19T22:32:10.123Z",
  );
});

Deno.test("%date and %dateISO follow the clock across requests of one logger", async () => {
  const lines = await at(NOW + 5, "UTC", async (clock) => {
    const lines: string[] = [];
    const middleware = logger({
      format: "%date %dateISO",
      log: (line) => lines.push(line),
    });
    const request = () => new RequestContext(new Request("http://x/"));
    const respond = () => Promise.resolve(new Response());
    for (const step of [0, 40, 950, 1, 59_000]) {
      clock.tick(step);
      await middleware(request(), respond);
    }
    return lines;
  });
  assert.deepEqual(lines, [
    "19/Nov/2025:22:32:10 +0000 2025-11-19T22:32:10.005Z",
    "19/Nov/2025:22:32:10 +0000 2025-11-19T22:32:10.045Z",
    "19/Nov/2025:22:32:10 +0000 2025-11-19T22:32:10.995Z",
    "19/Nov/2025:22:32:10 +0000 2025-11-19T22:32:10.996Z",
    "19/Nov/2025:22:33:09 +0000 2025-11-19T22:33:09.996Z",
  ]);
});

Deno.test("%duration is the time to the response in milliseconds", async () => {
  const line = await at(
    NOW,
    "UTC",
    (clock) =>
      token("%duration", undefined, async () => {
        await clock.tickAsync(25);
        return new Response();
      }),
  );
  assert.equal(line, "25");
  assert.equal(await at(NOW, "UTC", () => token("%duration")), "0");
});

Deno.test("%contentLength is the response Content-Length, or -", async () => {
  const sized = () =>
    new Response("abc", { headers: { "Content-Length": "3" } });
  assert.equal(await token("%contentLength", undefined, sized), "3");
  assert.equal(
    await token("%contentLength", undefined, () => new Response("abc")),
    "-",
  );
});

Deno.test("%contentType is the response Content-Type, or -", async () => {
  const typed = () => Response.json({});
  assert.equal(
    await token("%contentType", undefined, typed),
    "application/json",
  );
  assert.equal(
    await token("%contentType", undefined, () => new Response(null)),
    "-",
  );
});

Deno.test("%host, %hostname and %port come from the request URL", async () => {
  const url = "http://example.com:8080/a";
  assert.equal(await token("%host", url), "example.com:8080");
  assert.equal(await token("%hostname", url), "example.com");
  assert.equal(await token("%port", url), "8080");
  assert.equal(await token("%host", "https://example.com/"), "example.com");
});

Deno.test("%port falls back to the scheme's default port", async () => {
  assert.equal(await token("%port", "http://example.com/"), "80");
  assert.equal(await token("%port", "https://example.com/"), "443");
  assert.equal(await token("%port", "https://example.com:443/"), "443");
});

Deno.test("%method is the request method", async () => {
  const request = new Request("http://x/", { method: "DELETE" });
  assert.equal(await token("%method", request), "DELETE");
});

Deno.test("%path is pathname plus search; %pathname is the path alone", async () => {
  const url = "http://x/a/b%20c?q=1&r=two#frag";
  assert.equal(await token("%path", url), "/a/b%20c?q=1&r=two");
  assert.equal(await token("%pathname", url), "/a/b%20c");
  assert.equal(await token("%path", "http://x/a/b"), "/a/b");
});

Deno.test("%query and %search are the search string, or - when empty", async () => {
  assert.equal(await token("%query", "http://x/?a=1"), "?a=1");
  assert.equal(await token("%search", "http://x/?a=1"), "?a=1");
  assert.equal(await token("%query", "http://x/"), "-");
  assert.equal(await token("%search", "http://x/?"), "-");
});

Deno.test("%referer is the request Referer header, or -", async () => {
  const request = new Request("http://x/", {
    headers: { Referer: "http://x/from" },
  });
  assert.equal(await token("%referer", request), "http://x/from");
  assert.equal(await token("%referer"), "-");
});

Deno.test("%userAgent is the request User-Agent header, or -", async () => {
  const request = new Request("http://x/", {
    headers: { "User-Agent": "curl/8.5.0" },
  });
  assert.equal(await token("%userAgent", request), "curl/8.5.0");
  assert.equal(await token("%userAgent", new Request("http://x/")), "-");
});

Deno.test("%status is the response status code", async () => {
  const notFound = () => new Response("nope", { status: 404 });
  assert.equal(await token("%status", undefined, notFound), "404");
});

Deno.test("%statusText is the response status text, or the standard one", async () => {
  const custom = () => new Response(null, { status: 200, statusText: "Fine" });
  assert.equal(await token("%statusText", undefined, custom), "Fine");
  const notFound = () => new Response(null, { status: 404 });
  assert.equal(await token("%statusText", undefined, notFound), "Not Found");
  const unknown = () => new Response(null, { status: 599 });
  assert.equal(await token("%statusText", undefined, unknown), "-");
});

Deno.test("%url is the full request URL", async () => {
  const url = "https://example.com:8443/a?b=c";
  assert.equal(await token("%url", url), url);
});

Deno.test("URL tokens agree with the URL parser on awkward URLs", async () => {
  const urls = [
    "http://example.com/",
    "https://example.com:8443/a/b?c=d&e#frag",
    "http://[::1]:8080/p?#f",
    "http://[::1]/p",
    "https://EXAMPLE.com:443?x",
    "http://h/?",
    "http://h/a%20b/%C3%A9?q=%3F#x?y",
    "http://h:80/a?b?c",
    "http://127.0.0.1:3000/x#",
    "ftp://h:2121/a?b",
    "ws://h/x?y",
  ];
  const defaults: Record<string, string> = {
    "http:": "80",
    "https:": "443",
    "ws:": "80",
    "ftp:": "21",
  };
  for (const input of urls) {
    const request = new Request(input);
    const url = new URL(request.url);
    const expected = [
      url.host,
      url.hostname,
      url.port || defaults[url.protocol],
      url.pathname + url.search,
      url.pathname,
      url.search,
      url.search,
    ].map((value) => value || "-").join(" ");
    assert.equal(
      await token(
        "%host %hostname %port %path %pathname %query %search",
        request,
      ),
      expected,
      input,
    );
  }
});

Deno.test("a format using every token renders each in place", async () => {
  const format = "%date %dateISO %duration %contentLength %contentType %host " +
    "%hostname %method %path %pathname %port %query %referer %search " +
    "%status %statusText %url %userAgent";
  const request = new Request("http://h:81/p?q", {
    method: "POST",
    headers: { "User-Agent": "ua", Referer: "r" },
  });
  const line = await at(
    NOW,
    "UTC",
    () =>
      token(format, request, () =>
        new Response("x", {
          status: 201,
          headers: { "Content-Length": "1", "Content-Type": "text/plain" },
        })),
  );
  assert.equal(
    line,
    "19/Nov/2025:22:32:10 +0000 2025-11-19T22:32:10.000Z 0 1 text/plain h:81 " +
      "h POST /p?q /p 81 ?q r ?q 201 Created http://h:81/p?q ua",
  );
});

Deno.test("a token is % and all the letters after it; text other than letters may follow", async () => {
  const line = await at(NOW, "UTC", () =>
    token(
      "%dateISO|%date|%statusText%status|%pathname%path|%hostname %host|%duration-ms",
      "http://h:81/p",
    ));
  assert.equal(
    line,
    "2025-11-19T22:32:10.000Z|19/Nov/2025:22:32:10 +0000|OK200|/p/p|h h:81|0-ms",
  );
});

Deno.test("a % not followed by a token name stays literal", async () => {
  assert.equal(
    await token("100% %% % %1 %-x %status%"),
    "100% %% % %1 %-x 200%",
  );
  assert.equal(await token("plain text"), "plain text");
  assert.equal(await token(""), "");
});

Deno.test("an unknown token is a TypeError naming it, when logger() is called", () => {
  assert.throws(
    () => logger({ format: "%method %foo %status" }),
    (error: unknown) =>
      error instanceof TypeError && error.message.includes('"%foo"'),
  );
  // Token names are case-sensitive.
  assert.throws(() => logger({ format: "%Date" }), /"%Date"/);
  assert.throws(() => logger({ format: "[%stauts]" }), /"%stauts"/);
});

Deno.test("a handler that throws is logged with status 500 and the error is rethrown", async () => {
  const lines: string[] = [];
  const middleware = logger({
    format: "%method %path %status %statusText %contentLength",
    log: (line) => lines.push(line),
  });
  const context = new RequestContext(new Request("http://x/boom"));
  const error = new Error("boom");
  await assert.rejects(
    async () => {
      await middleware(context, () => Promise.reject(error));
    },
    (thrown) => thrown === error,
  );
  assert.deepEqual(lines, ["GET /boom 500 Internal Server Error -"]);
});

Deno.test("colors: true colors the status by class and the method in bold", async () => {
  const status = (code: number) => () => new Response(null, { status: code });
  const colored = (code: number) =>
    logLine({ format: "%status", colors: true }, undefined, status(code));
  assert.equal(await colored(200), "\x1b[32m200\x1b[39m");
  assert.equal(await colored(302), "\x1b[36m302\x1b[39m");
  assert.equal(await colored(404), "\x1b[33m404\x1b[39m");
  assert.equal(await colored(503), "\x1b[31m503\x1b[39m");
  assert.equal(await colored(101), "101");
  assert.equal(
    await logLine({ format: "%method", colors: true }),
    "\x1b[1mGET\x1b[22m",
  );
});

Deno.test("colors: false never colors", async () => {
  assert.equal(
    await logLine({ format: "%method %status", colors: false }),
    "GET 200",
  );
});

// `script` (util-linux) runs a command on a pseudo-terminal.
const script = ["/usr/bin/script", "/bin/script"].find((path) => {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
});

/**
 * Logs one request with `colors: 'auto'` in a child process, with standard
 * output a pipe or (through `script`) a terminal, and returns the line.
 */
async function runAuto(
  env: Record<string, string>,
  { terminal }: { terminal: boolean },
): Promise<string> {
  const dir = await Deno.makeTempDir();
  try {
    const child = `${dir}/child.ts`;
    const out = `${dir}/line.json`;
    await Deno.writeTextFile(
      child,
      `
      import { logger } from ${JSON.stringify(import.meta.resolve("./mod.ts"))};
      import { RequestContext } from ${
        JSON.stringify(import.meta.resolve("../router/context.ts"))
      };
      let line = "";
      console.log = (text: string) => { line = text; };
      const middleware = logger({ format: "%method %status", colors: "auto" });
      await middleware(
        new RequestContext(new Request("http://x/")),
        () => Promise.resolve(new Response()),
      );
      Deno.writeTextFileSync(${JSON.stringify(out)}, JSON.stringify(line));
      `,
    );
    // The repository's config: the logger imports @opentelemetry/api (for
    // %traceId) through its import map.
    const config = new URL("../deno.json", import.meta.url).pathname;
    const command = `${Deno.execPath()} run --config ${config} -A ${child}`;
    const [program, args] = terminal
      ? [script!, ["-qec", command, "/dev/null"]]
      : [Deno.execPath(), ["run", "--config", config, "-A", child]];
    const inherited = Deno.env.toObject();
    delete inherited.NO_COLOR;
    const output = await new Deno.Command(program, {
      args,
      env: { ...inherited, ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(
      output.success,
      new TextDecoder().decode(output.stdout) +
        new TextDecoder().decode(output.stderr),
    );
    return JSON.parse(await Deno.readTextFile(out));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("colors: 'auto' is off when standard output is not a terminal", async () => {
  assert.equal(await runAuto({}, { terminal: false }), "GET 200");
});

Deno.test({
  name: "colors: 'auto' is on for a terminal, and off there with NO_COLOR",
  ignore: script === undefined,
  async fn() {
    assert.equal(
      await runAuto({}, { terminal: true }),
      "\x1b[1mGET\x1b[22m \x1b[32m200\x1b[39m",
    );
    assert.equal(
      await runAuto({ NO_COLOR: "1" }, { terminal: true }),
      "GET 200",
    );
  },
});

Deno.test("through the router: 404s and thrown errors are logged", async () => {
  const lines: string[] = [];
  const errors: unknown[] = [];
  const router = createRouter({
    middleware: [
      logger({
        format: "%method %path %status",
        log: (line) => lines.push(line),
      }),
    ],
    onError(error) {
      errors.push(error);
      return new Response("Internal Server Error", { status: 500 });
    },
  });
  const boom = new Error("boom");
  router.get("/ok", () => new Response("fine"));
  router.get("/boom", () => {
    throw boom;
  });
  assert.equal(
    (await router.fetch(new Request("http://x/ok?a=1"))).status,
    200,
  );
  assert.equal(
    (await router.fetch(new Request("http://x/missing"))).status,
    404,
  );
  const failed = await router.fetch(new Request("http://x/boom"));
  assert.equal(failed.status, 500);
  assert.equal(await failed.text(), "Internal Server Error");
  assert.deepEqual(errors, [boom]);
  assert.deepEqual(lines, [
    "GET /ok?a=1 200",
    "GET /missing 404",
    "GET /boom 500",
  ]);
});

Deno.test("host tokens cannot be spoofed by credentials in the Host header; a # ends the search", async () => {
  const lines: string[] = [];
  const seen: string[] = [];
  const router = createRouter({
    middleware: [
      logger({
        format: "%host|%hostname|%port|%search|%query|%pathname",
        log: (line) => lines.push(line),
      }),
    ],
  });
  router.any("/*", (context) => {
    const url = new URL(context.request.url);
    seen.push(
      `${url.host}|${url.hostname}|${url.port || "80"}|${url.search || "-"}|${
        url.search || "-"
      }|${url.pathname}`,
    );
    return new Response("ok");
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    for (
      const [target, host] of [["/p", "a:b@h"], ["/a#?b", "h"], [
        "/q?x=1#frag?y",
        "h:8080",
      ]]
    ) {
      await rawGet(server.addr.port, target, { host });
    }
  } finally {
    await server.shutdown();
  }
  assert.equal(lines.length, seen.length);
  assert.deepEqual(lines, seen, "the logger agrees with new URL()");
  assert.ok(!lines[0].includes("a:b"), "no credentials in the logged host");
});

Deno.test("a Host that URL refuses is logged as sent, and the request still answered", async () => {
  const lines: string[] = [];
  const router = createRouter({
    middleware: [
      logger({
        format: "%host %path %pathname %search %status",
        log: (line) => lines.push(line),
      }),
    ],
  });
  router.get("/admin", () => new Response("ok"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  const statuses: string[] = [];
  try {
    // Deno.serve puts these in request.url as sent; new URL() throws on
    // them (a space in the host), so context.url does too.
    for (const host of ["a b?x", "u@a b", "a b"]) {
      const { status } = await rawGet(server.addr.port, "/admin?k=v", {
        host,
      });
      statuses.push(String(status));
    }
  } finally {
    await server.shutdown();
  }
  assert.deepEqual(statuses, ["200", "200", "200"]);
  assert.deepEqual(lines, [
    "a b?x /admin?k=v /admin ?k=v 200",
    "a b /admin?k=v /admin ?k=v 200", // no credentials, as for a valid Host
    "a b /admin?k=v /admin ?k=v 200",
  ]);
});

Deno.test("request tokens escape control characters (terminal escapes, forged lines)", async () => {
  const request = new Request("http://example.com/a?q=1", {
    headers: {
      "User-Agent": "evil\x1b[31mRED\x1b[0m\tagent\x7f\x9b",
      "Referer": "http://x/\x1b]0;title\x07",
    },
  });
  const line = await logLine({ format: "%userAgent|%referer|%path" }, request);
  assert.equal(
    line,
    "evil\\x1b[31mRED\\x1b[0m\\x09agent\\x7f\\x9b|http://x/\\x1b]0;title\\x07|/a?q=1",
  );
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  assert.ok(!/[\x00-\x1f\x7f-\x9f]/.test(line), "no raw control character");
});

Deno.test("every request-derived token is escaped on a real server", async () => {
  const lines: string[] = [];
  const router = createRouter({
    middleware: [
      logger({
        format: "%method %host %hostname %port %path %pathname %query " +
          "%search %url %userAgent %referer",
        log: (line) => lines.push(line),
      }),
    ],
  });
  router.any("/*", () => new Response("ok"));
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    router.fetch,
  );
  try {
    // Raw bytes on the wire: obs-text and tab are legal in header values;
    // paths arrive percent-encoded.
    await rawGet(server.addr.port, "/p%1b[31m?x=%1b", {
      host: "h",
      headers: "User-Agent: a\tb\r\nReferer: r\tq\r\n",
    });
  } finally {
    await server.shutdown();
  }
  assert.equal(lines.length, 1);
  // deno-lint-ignore no-control-regex -- matching control characters is the point
  assert.ok(!/[\x00-\x1f\x7f-\x9f]/.test(lines[0]), lines[0]);
  assert.ok(lines[0].includes("a\\x09b r\\x09q"), lines[0]);
});

Deno.test("a known token run into letters is refused, with the way to write it", () => {
  for (
    const [format, word, hint] of [
      ["%statuscode", "%statuscode", '"%status code"'],
      ["took %durationMs", "%durationMs", '"%duration Ms"'],
      ["%methods", "%methods", '"%method s"'],
      ["%dateISOx", "%dateISOx", '"%dateISO x"'],
    ]
  ) {
    assert.throws(
      () => logger({ format }),
      (error: unknown) =>
        error instanceof TypeError && error.message.includes(`"${word}"`) &&
        error.message.includes(hint) && error.message.includes("%requestId"),
      format,
    );
  }
});

Deno.test("%ip is the client address and %requestId the request id, - when absent", async () => {
  const { createRouter } = await import("@fetchkit/toolkit/fetch-router");
  const { requestId } = await import("@fetchkit/toolkit/request-id-middleware");
  const lines: string[] = [];
  const router = createRouter({
    middleware: [
      requestId(),
      logger({ format: "%ip %requestId %status", log: (l) => lines.push(l) }),
    ],
  });
  router.get("/", () => new Response("ok"));
  await router.fetch(
    new Request("http://localhost/", { headers: { "X-Request-Id": "req-1" } }),
    { remoteAddr: { hostname: "192.0.2.7", port: 1, transport: "tcp" } },
  );
  await router.fetch(new Request("http://localhost/"));
  assert.equal(lines[0], "192.0.2.7 req-1 200");
  assert.match(lines[1], /^- [0-9a-f-]{36} 200$/);
  const bare = createRouter({
    middleware: [
      logger({ format: "%ip %requestId", log: (l) => lines.push(l) }),
    ],
  });
  bare.get("/", () => new Response("ok"));
  await bare.fetch(new Request("http://localhost/"));
  assert.equal(lines[2], "- -");
});
