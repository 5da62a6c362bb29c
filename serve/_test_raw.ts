// Test helper: an HTTP/1.1 request sent as raw bytes over node:net (so it
// runs on Node and Bun too), for targets and headers a client would
// normalise. Portable.
import { connect } from "node:net";

/**
 * Sends `head` (request line and headers; `Connection: close` is added)
 * to 127.0.0.1:`port`; the status and the body.
 */
export function rawExchange(
  port: number,
  head: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => text += chunk);
    socket.on("error", reject);
    socket.on("close", () => {
      const status = Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0);
      resolve({ status, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    socket.write(head + "Connection: close\r\n\r\n");
  });
}
