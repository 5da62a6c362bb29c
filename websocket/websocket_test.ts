// WebSockets through serve() on a real socket: runs on Deno, Node and Bun
// (the Node/Bun bundle of _tools/runtimes picks this file up).
import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { serve } from "@fetchkit/toolkit/serve";
import {
  upgradeWebSocket,
  type WebSocketCloseEvent,
  type WebSocketConnection,
} from "@fetchkit/toolkit/websocket";
import {
  closed,
  nextMessage,
  open,
  rawExchange,
  rawUpgrade,
} from "./_test_client.ts";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function app() {
  const events: string[] = [];
  const serverClosed: WebSocketCloseEvent[] = [];
  let blast: Promise<{ sent: number; maxBuffered: number }> | undefined;
  const router = createRouter();
  router.get("/echo", (context) =>
    upgradeWebSocket(context, {
      onOpen: () => events.push("open"),
      onMessage(event, ws) {
        if (event.data === "close me") ws.close(4000, "as asked");
        else ws.send(event.data);
      },
      onClose(event) {
        events.push(`close ${event.code} ${event.reason}`);
        serverClosed.push(event);
      },
    }, { protocols: ["echo.v2", "echo.v1"] }));
  router.get("/protocol", (context) =>
    upgradeWebSocket(context, {
      onMessage: (_event, ws) => ws.send(`protocol=${ws.protocol}`),
    }, { protocols: ["echo.v2", "echo.v1"] }));
  router.get("/local", (context) =>
    upgradeWebSocket(context, {
      onMessage: (_event, ws) => ws.send("local"),
    }, { allowedHosts: ["127.0.0.1", "localhost"] }));
  router.get("/blast", (context) =>
    upgradeWebSocket(context, {
      onOpen(_event, ws: WebSocketConnection) {
        blast = (async () => {
          const chunk = new Uint8Array(64 * 1024);
          let sent = 0;
          let maxBuffered = 0;
          // 64 MiB at most: far past the 1 MiB limit below.
          while (ws.readyState === 1 && sent < 1024) {
            ws.send(chunk);
            sent++;
            maxBuffered = Math.max(maxBuffered, ws.bufferedAmount);
            await delay(0);
          }
          return { sent, maxBuffered };
        })();
      },
    }, { maxBufferedBytes: 1024 * 1024 }));
  const server = serve(router.fetch, {
    hostname: "127.0.0.1",
    port: 0,
    handleSignals: false,
  });
  return {
    server,
    url: `ws://127.0.0.1:${server.addr.port}`,
    events,
    serverClosed,
    blast: () => blast,
  };
}

Deno.test("websocket: text and binary echo, subprotocol chosen by the server's preference", async () => {
  const { server, url } = app();
  try {
    const client = await open(`${url}/echo`, ["echo.v1", "echo.v2"]);
    assert.equal(client.protocol, "echo.v2");
    client.send("hello");
    assert.equal(await nextMessage(client), "hello");
    client.send(new Uint8Array([0, 1, 2, 255]));
    const binary = await nextMessage(client);
    assert.ok(binary instanceof ArrayBuffer, "binary arrives as binary");
    assert.deepEqual([...new Uint8Array(binary)], [0, 1, 2, 255]);
    const unicode = "héllo ✓ 𝄞";
    client.send(unicode);
    assert.equal(await nextMessage(client), unicode);
    const done = closed(client);
    client.close(1000);
    assert.equal((await done)[0], 1000);
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: close codes both ways", async () => {
  const { server, url, serverClosed } = app();
  try {
    const client = await open(`${url}/echo`);
    const done = closed(client);
    client.send("close me");
    assert.deepEqual(await done, [4000, "as asked"]);

    const second = await open(`${url}/echo`);
    second.close(4001, "bye");
    for (let i = 0; i < 100 && serverClosed.length < 2; i++) await delay(20);
    assert.equal(serverClosed[1]?.code, 4001);
    assert.equal(serverClosed[1]?.reason, "bye");
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: a 2 MiB message closes the socket with 1009; the server keeps serving", async () => {
  const { server, url, serverClosed } = app();
  try {
    const client = await open(`${url}/echo`);
    const done = closed(client);
    client.send("x".repeat(2 * 1024 * 1024));
    assert.equal((await done)[0], 1009);
    for (let i = 0; i < 100 && serverClosed.length < 1; i++) await delay(20);
    assert.equal(serverClosed[0]?.code, 1009);
    const next = await open(`${url}/echo`);
    next.send(new Uint8Array(1024 * 1024)); // exactly the limit: accepted
    assert.equal(
      (await nextMessage(next) as ArrayBuffer).byteLength,
      1024 * 1024,
    );
    next.close();
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: a cross-site Origin is refused with 403, the own origin and no Origin are let in", async () => {
  const { server } = app();
  const port = server.addr.port;
  try {
    const evil = await rawUpgrade(port, "/echo", {
      Origin: "https://evil.example",
    });
    evil.socket.destroy();
    assert.match(evil.head, /^HTTP\/1\.1 403/);
    const nullOrigin = await rawUpgrade(port, "/echo", { Origin: "null" });
    nullOrigin.socket.destroy();
    assert.match(nullOrigin.head, /^HTTP\/1\.1 403/);
    const own = await rawUpgrade(port, "/echo", {
      Origin: `http://127.0.0.1:${port}`,
    });
    own.socket.destroy();
    assert.match(own.head, /^HTTP\/1\.1 101/);
    const none = await rawUpgrade(port, "/echo");
    none.socket.destroy();
    assert.match(none.head, /^HTTP\/1\.1 101/);
    const wrongProtocol = await rawUpgrade(port, "/echo", {
      "Sec-WebSocket-Protocol": "other",
    });
    wrongProtocol.socket.destroy();
    assert.match(wrongProtocol.head, /^HTTP\/1\.1 400/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: a reader that never reads is closed with 1008 once 1 MiB waits unsent", async () => {
  const { server, blast } = app();
  try {
    const { socket, head } = await rawUpgrade(server.addr.port, "/blast");
    assert.match(head, /^HTTP\/1\.1 101/);
    for (let i = 0; i < 100 && blast() === undefined; i++) await delay(10);
    const { sent, maxBuffered } = await blast()!;
    socket.destroy();
    // Kernel socket buffers take some before the server's buffer fills.
    assert.ok(sent < 1024, `stopped sending: ${sent} chunks of 64 KiB`);
    // Closed once past the limit: at most one message (64 KiB) over it.
    assert.ok(
      maxBuffered <= 1024 * 1024 + 64 * 1024 + 16,
      `buffered at most the limit and one message: ${maxBuffered}`,
    );
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: serve() shutdown closes open sockets with 1001", async () => {
  const { server, url } = app();
  const client = await open(`${url}/echo`);
  const done = closed(client);
  await server.shutdown();
  assert.deepEqual(await done, [1001, "Server shutting down"]);
});

Deno.test("upgradeWebSocket(): not an upgrade answers 426; bad options throw", () => {
  const plain = upgradeWebSocket(new Request("http://localhost/ws"), {});
  assert.equal(plain.status, 426);
  assert.equal(plain.headers.get("upgrade"), "websocket");
  const noKey = upgradeWebSocket(
    new Request("http://localhost/ws", { headers: { Upgrade: "websocket" } }),
    {},
  );
  assert.equal(noKey.status, 400);
  assert.throws(
    () =>
      upgradeWebSocket(new Request("http://localhost/ws"), {}, {
        maxMessageBytes: 0,
      }),
    /maxMessageBytes must be a whole number of bytes >= 1, got 0/,
  );
});

Deno.test("websocket: the handlers see the subprotocol the 101 chose", async () => {
  const { server, url } = app();
  try {
    const client = await open(`${url}/protocol`, ["echo.v1"]);
    const none = await open(`${url}/protocol`);
    client.send("which?");
    none.send("which?");
    const [chosen, nothing] = await Promise.all([
      nextMessage(client),
      nextMessage(none),
    ]);
    client.close();
    none.close();
    assert.equal(client.protocol, "echo.v1");
    assert.equal(chosen, "protocol=echo.v1");
    assert.equal(nothing, "protocol=");
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: Upgrade without Connection: Upgrade gets a plain 400 naming it, never a 101 that does not switch", async () => {
  const { server } = app();
  const port = server.addr.port;
  try {
    for (const connection of ["keep-alive", "close", undefined]) {
      const text = await rawExchange(
        port,
        [
          "GET /echo HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          "Upgrade: websocket",
          ...(connection === undefined ? [] : [`Connection: ${connection}`]),
          "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
          "Sec-WebSocket-Version: 13",
          "",
          // A second request on the same connection: served as HTTP, not
          // tunnelled, once the first was refused.
          "GET /echo HTTP/1.1",
          `Host: 127.0.0.1:${port}`,
          "Connection: close",
          "",
          "",
        ].join("\r\n"),
      );
      assert.match(text, /^HTTP\/1\.1 400/, `Connection: ${connection}`);
      assert.match(text, /Connection: Upgrade/);
      assert.doesNotMatch(text, /HTTP\/1\.1 101/);
      assert.doesNotMatch(text, /HTTP\/1\.1 500/);
    }
  } finally {
    await server.shutdown();
  }
});

Deno.test("websocket: allowedHosts refuses a DNS-rebinding page (its own Origin, a foreign Host) with 403", async () => {
  const { server } = app();
  const port = server.addr.port;
  try {
    // What a page on evil.example, resolved to 127.0.0.1, sends.
    const rebound = await rawUpgrade(port, "/local", {
      Host: `evil.example:${port}`,
      Origin: `http://evil.example:${port}`,
    });
    rebound.socket.destroy();
    assert.match(rebound.head, /^HTTP\/1\.1 403/);
    // Without the allow-list the same request passes the Origin check.
    const open = await rawUpgrade(port, "/echo", {
      Host: `evil.example:${port}`,
      Origin: `http://evil.example:${port}`,
    });
    open.socket.destroy();
    assert.match(open.head, /^HTTP\/1\.1 101/);
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const own = await rawUpgrade(port, "/local", {
        Host: host,
        Origin: `http://${host}`,
      });
      own.socket.destroy();
      assert.match(own.head, /^HTTP\/1\.1 101/, host);
    }
    const noOrigin = await rawUpgrade(port, "/local", { Host: "evil.example" });
    noOrigin.socket.destroy();
    assert.match(noOrigin.head, /^HTTP\/1\.1 403/);
  } finally {
    await server.shutdown();
  }
});

Deno.test("upgradeWebSocket(): allowedHosts names the refused Host; a malformed entry throws", async () => {
  const refused = upgradeWebSocket(
    new Request("http://evil.example:8000/ws", {
      headers: {
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
      },
    }),
    {},
    { allowedHosts: ["localhost"] },
  );
  assert.equal(refused.status, 403);
  assert.match(
    await refused.text(),
    /Host "evil\.example:8000" is not one of allowedHosts/,
  );
  assert.throws(
    () =>
      upgradeWebSocket(new Request("http://localhost/ws"), {}, {
        allowedHosts: ["http://localhost"],
      }),
    /allowedHosts entries are host names/,
  );
});
