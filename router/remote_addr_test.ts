import assert from "node:assert/strict";
import {
  createRouter,
  type RemoteAddr,
  RequestContext,
  type ServeInfo,
} from "@fetchkit/toolkit/fetch-router";
import { formatIp, parseIp, parseNetwork } from "./ip_address.ts";

function info(hostname: string, port = 40000): ServeInfo {
  return { remoteAddr: { hostname, port, transport: "tcp" } };
}

function echoRouter(options: Parameters<typeof createRouter>[0] = {}) {
  const router = createRouter(options);
  router.get(
    "/",
    ({ remoteAddr }) =>
      Response.json(remoteAddr === undefined ? null : { ...remoteAddr }),
  );
  return router;
}

async function addrOf(
  router: ReturnType<typeof createRouter>,
  serveInfo?: ServeInfo,
  headers: HeadersInit = {},
): Promise<RemoteAddr | null> {
  const response = await router.fetch(
    new Request("http://localhost/", { headers }),
    serveInfo,
  );
  return await response.json();
}

Deno.test("remoteAddr: the peer the server passes, undefined without info", async () => {
  const router = echoRouter();
  assert.deepEqual(await addrOf(router, info("192.0.2.7", 5000)), {
    hostname: "192.0.2.7",
    port: 5000,
    transport: "tcp",
  });
  assert.equal(await addrOf(router), null);
  // A Unix socket has no hostname: no address.
  assert.equal(
    await addrOf(router, { remoteAddr: { transport: "unix" } }),
    null,
  );
  // Bun passes its server, whose requestIP() knows the peer.
  assert.deepEqual(
    await addrOf(router, {
      requestIP: () => ({ address: "::1", port: 7, family: "IPv6" }),
    }),
    { hostname: "::1", port: 7, transport: "tcp" },
  );
  // @hono/node-server passes the node:http request.
  assert.deepEqual(
    await addrOf(router, {
      incoming: {
        socket: { remoteAddress: "::ffff:192.0.2.8", remotePort: 9 },
      },
    }),
    { hostname: "192.0.2.8", port: 9, transport: "tcp" },
  );
});

Deno.test("remoteAddr: X-Forwarded-For is ignored without trustProxy", async () => {
  const router = echoRouter();
  const addr = await addrOf(router, info("192.0.2.7"), {
    "X-Forwarded-For": "203.0.113.9",
  });
  assert.equal(addr?.hostname, "192.0.2.7");
});

Deno.test("remoteAddr: trustProxy takes the client a listed proxy names", async () => {
  const router = echoRouter({
    trustProxy: { proxies: ["10.0.0.0/8", "loopback"] },
  });
  // Client -> 10.1.1.1 -> 127.0.0.1 -> app.
  const addr = await addrOf(router, info("127.0.0.1"), {
    "X-Forwarded-For": "203.0.113.9, 10.1.1.1",
  });
  assert.deepEqual(addr, {
    hostname: "203.0.113.9",
    port: 0,
    transport: "tcp",
  });
  // A spoofed leftmost entry is not believed: the first untrusted hop wins.
  const spoofed = await addrOf(router, info("127.0.0.1"), {
    "X-Forwarded-For": "1.1.1.1, 198.51.100.4",
  });
  assert.equal(spoofed?.hostname, "198.51.100.4");
  // A peer that is not a proxy is the client, whatever it sends.
  const direct = await addrOf(router, info("198.51.100.4"), {
    "X-Forwarded-For": "1.1.1.1",
  });
  assert.equal(direct?.hostname, "198.51.100.4");
  // No header: the proxy itself.
  assert.equal(
    (await addrOf(router, info("127.0.0.1")))?.hostname,
    "127.0.0.1",
  );
  // Garbage stops the walk at the proxy that wrote it.
  const garbage = await addrOf(router, info("127.0.0.1"), {
    "X-Forwarded-For": "203.0.113.9, unknown",
  });
  assert.equal(garbage?.hostname, "127.0.0.1");
  // Ports and brackets are understood; IPv6 comes out compressed.
  const v6 = await addrOf(router, info("::1"), {
    "X-Forwarded-For": "[2001:DB8:0:0::1]:4711",
  });
  assert.deepEqual(v6, {
    hostname: "2001:db8::1",
    port: 4711,
    transport: "tcp",
  });
});

Deno.test("remoteAddr: trustProxy with the Forwarded header only reads that header", async () => {
  const router = echoRouter({
    trustProxy: { proxies: ["127.0.0.1"], header: "forwarded" },
  });
  const addr = await addrOf(router, info("127.0.0.1"), {
    Forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https, for=127.0.0.1',
    "X-Forwarded-For": "6.6.6.6",
  });
  assert.deepEqual(addr, {
    hostname: "2001:db8:cafe::17",
    port: 4711,
    transport: "tcp",
  });
  const hidden = await addrOf(router, info("127.0.0.1"), {
    Forwarded: "for=_hidden",
  });
  assert.equal(hidden?.hostname, "127.0.0.1");
});

Deno.test("remoteAddr: trustProxy as a function, and bad settings are refused", async () => {
  const router = echoRouter({
    trustProxy: { proxies: (address) => address === "192.0.2.1" },
  });
  const addr = await addrOf(router, info("192.0.2.1"), {
    "X-Forwarded-For": "203.0.113.5",
  });
  assert.equal(addr?.hostname, "203.0.113.5");
  assert.throws(
    () => createRouter({ trustProxy: { proxies: ["10.0.0.0/33"] } }),
    { name: "TypeError", message: /"10.0.0.0\/33" is not an IP address/ },
  );
  assert.throws(
    () => createRouter({ trustProxy: { proxies: ["nginx"] } }),
    /"nginx" is not an IP address/,
  );
  assert.throws(
    // deno-lint-ignore no-explicit-any
    () => createRouter({ trustProxy: { proxies: [], header: "via" as any } }),
    /trustProxy.header must be/,
  );
});

Deno.test("remoteAddr: middleware may set it; a bare context has none", () => {
  const context = new RequestContext(new Request("http://localhost/"));
  assert.equal(context.remoteAddr, undefined);
  context.remoteAddr = { hostname: "192.0.2.1", port: 1, transport: "tcp" };
  assert.equal(context.remoteAddr.hostname, "192.0.2.1");
});

Deno.test("ip_address: parse, networks and formatting", () => {
  for (
    const [text, formatted] of [
      ["192.0.2.1", "192.0.2.1"],
      ["::ffff:192.0.2.1", "192.0.2.1"],
      ["::1", "::1"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["fe80::1%eth0", "fe80::1"],
      ["1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"],
    ]
  ) {
    assert.equal(formatIp(parseIp(text)!), formatted, text);
  }
  for (
    const bad of [
      "",
      "1.2.3",
      "01.2.3.4",
      "256.1.1.1",
      "1::2::3",
      "g::1",
      "1:2:3:4:5:6:7:8:9",
      "unknown",
    ]
  ) {
    assert.equal(parseIp(bad), undefined, bad);
  }
  assert.equal(parseNetwork("10.0.0.0/8")?.bits, 104);
  assert.equal(parseNetwork("fd00::/129"), undefined);
});

Deno.test("remoteAddr: hostile forwarding headers never throw and never give a non-address", async () => {
  const pieces = [
    "1.2.3.4",
    "::1",
    "[::1]:80",
    "for=",
    'for="',
    '"',
    ";",
    ",",
    " ",
    "unknown",
    "_x",
    "%",
    "[",
    "]",
    ":",
    "999.1.1.1",
    "1.2.3.4:99999",
    "for=[::1]",
    "\t",
    "FOR=10.0.0.1",
    "a".repeat(50),
    "::ffff:10.0.0.1",
    "fe80::1%eth0",
  ];
  const x = createRouter({ trustProxy: { proxies: ["private", "loopback"] } });
  const f = createRouter({
    trustProxy: { proxies: ["private", "loopback"], header: "forwarded" },
  });
  for (const router of [x, f]) {
    router.get("/", ({ remoteAddr }) => Response.json(remoteAddr ?? null));
  }
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let i = 0; i < 2000; i++) {
    let value = "";
    const count = 1 + Math.floor(random() * 8);
    for (let j = 0; j < count; j++) {
      value += pieces[Math.floor(random() * pieces.length)];
    }
    for (const router of [x, f]) {
      const addr = await addrOf(router, info("10.0.0.1"), {
        "X-Forwarded-For": value,
        Forwarded: value,
      });
      assert.ok(addr !== null, value);
      assert.ok(
        parseIp(addr.hostname) !== undefined,
        `${JSON.stringify(value)} gave ${addr.hostname}`,
      );
      assert.ok(Number.isInteger(addr.port) && addr.port <= 65535, value);
    }
  }
});
