// Test helper: an HTTP/1.1 GET sent as raw bytes. `Deno.serve` builds
// `request.url` from the request target and the Host header as sent, so
// targets and Hosts that `fetch()` would normalize or refuse only reach a
// server this way.

/** What came back: the status and the body, and the whole text. */
export interface RawResponse {
  status: number;
  body: string;
  text: string;
}

/**
 * Sends `GET <target>` with `Host: <host>` (and `Connection: close`, so
 * the exchange ends when the server is done) to 127.0.0.1:`port`.
 */
export async function rawGet(
  port: number,
  target: string,
  options: { host?: string; headers?: string } = {},
): Promise<RawResponse> {
  const connection = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    await connection.write(
      new TextEncoder().encode(
        `GET ${target} HTTP/1.1\r\nHost: ${options.host ?? "localhost"}\r\n` +
          `${options.headers ?? ""}Connection: close\r\n\r\n`,
      ),
    );
  } catch (error) {
    connection.close();
    throw error;
  }
  const text = await new Response(connection.readable).text();
  const split = text.indexOf("\r\n\r\n");
  return {
    status: Number(text.split(" ")[1]),
    body: split === -1 ? "" : text.slice(split + 4),
    text,
  };
}
