// An S3 gateway on loopback that answers as told by the key in the path
// (a node:http server, no Ceph needed), and a storage pointed at it: for
// the tests of what the storage reports about its requests (metrics,
// spans). Portable: node: APIs only.
import { createServer, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import {
  createS3FileStorage,
  type S3FileStorage,
} from "@fetchkit/toolkit/file-storage";

function refuse(res: ServerResponse, status: number, code: string): void {
  res.writeHead(status, { "content-type": "application/xml" });
  res.end(`<Error><Code>${code}</Code><Message>${code}</Message></Error>`);
}

/**
 * A gateway whose answer depends on the key: `forbidden*` 403,
 * `busy*` 503, `hang*` never, `missing*` 404 to HEAD; else 200.
 */
export async function gateway(): Promise<
  { port: number; close(): Promise<void> }
> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const url = new URL(req.url!, "http://localhost");
      const key = url.pathname.split("/").slice(2).join("/");
      if (key.startsWith("forbidden")) return refuse(res, 403, "AccessDenied");
      if (key.startsWith("busy")) return refuse(res, 503, "SlowDown");
      if (key.startsWith("hang")) return; // never answers
      if (req.method === "HEAD") {
        if (key.startsWith("missing")) {
          res.writeHead(404).end();
          return;
        }
        res.writeHead(200, {
          "content-length": "2",
          "content-type": "text/plain",
          etag: '"e"',
        }).end();
        return;
      }
      if (req.method === "GET" && key === "") {
        res.writeHead(200, { "content-type": "application/xml" });
        res.end(
          "<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>",
        );
        return;
      }
      res.writeHead(200, { etag: '"e"' }).end();
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** An S3 file storage on the gateway at `port`, 300 ms per request. */
export function storageAt(port: number): S3FileStorage {
  return createS3FileStorage({
    endpoint: `http://127.0.0.1:${port}`,
    bucket: "metrics",
    region: "us-east-1",
    accessKeyId: "key",
    secretAccessKey: "secret",
    forcePathStyle: true,
    timeout: 300,
  });
}
