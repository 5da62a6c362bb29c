// WebSocket clients for the tests, on every runtime: the global
// WebSocket where there is one (Deno, Bun), else `ws`'s (Node 20); and a
// raw TCP client for what a browser cannot send (any Origin) or does not
// do (never read).
import { connect, type Socket } from "node:net";

/** The browser-like client the tests use. */
export interface Client {
  binaryType: string;
  readonly readyState: number;
  readonly protocol: string;
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  send(data: string | ArrayBuffer | Uint8Array): void;
  close(code?: number, reason?: string): void;
}

type ClientClass = new (url: string, protocols?: string[]) => Client;

async function clientClass(): Promise<ClientClass> {
  const native = (globalThis as { WebSocket?: ClientClass }).WebSocket;
  if (native !== undefined) return native;
  return (await import("ws")).WebSocket as unknown as ClientClass;
}

/** Opens a socket; rejects when it closes before opening. */
export async function open(url: string, protocols?: string[]): Promise<Client> {
  const Class = await clientClass();
  const client = protocols ? new Class(url, protocols) : new Class(url);
  client.binaryType = "arraybuffer";
  await new Promise<void>((resolve, reject) => {
    client.onopen = () => resolve();
    client.onerror = () => {};
    client.onclose = (event) =>
      reject(new Error(`closed before open: ${event.code}`));
  });
  client.onclose = null;
  return client;
}

/** The next message. */
export function nextMessage(client: Client): Promise<unknown> {
  return new Promise((resolve) => {
    client.onmessage = (event) => {
      client.onmessage = null;
      resolve(event.data);
    };
  });
}

/** The close code and reason. */
export function closed(client: Client): Promise<[number, string]> {
  return new Promise((resolve) => {
    client.onclose = (event) => resolve([event.code, event.reason]);
  });
}

/** Sends an upgrade request by hand; resolves with the socket and the response head. */
export function rawUpgrade(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ socket: Socket; head: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("error", reject);
    socket.on("connect", () => {
      // Given headers replace the defaults of the same name.
      const all: Record<string, string> = {
        Host: `127.0.0.1:${port}`,
        Upgrade: "websocket",
        Connection: "Upgrade",
        "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version": "13",
        ...headers,
      };
      const lines = [
        `GET ${path} HTTP/1.1`,
        ...Object.entries(all).map(([name, value]) => `${name}: ${value}`),
      ];
      socket.write(lines.join("\r\n") + "\r\n\r\n");
    });
    const onData = (chunk: Uint8Array) => {
      text += new TextDecoder("latin1").decode(chunk);
      const end = text.indexOf("\r\n\r\n");
      if (end !== -1) {
        socket.off("data", onData);
        // Stop reading: a client that never takes what it is sent.
        socket.pause();
        resolve({ socket, head: text.slice(0, end) });
      }
    };
    socket.on("data", onData);
  });
}

/**
 * Sends `text` as is and collects what comes back until the server closes
 * or `waitMs` passes; the socket is then destroyed.
 */
export function rawExchange(
  port: number,
  text: string,
  waitMs = 1000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let received = "";
    const timer = setTimeout(done, waitMs);
    function done(): void {
      clearTimeout(timer);
      socket.destroy();
      resolve(received);
    }
    socket.on("error", reject);
    socket.on("connect", () => socket.write(text));
    socket.on("data", (chunk: Uint8Array) => {
      received += new TextDecoder("latin1").decode(chunk);
    });
    socket.on("end", done);
  });
}
