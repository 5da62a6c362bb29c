// One server of `_servers.ts` (bundled) and a raw HTTP/1.1 keep-alive
// client of a few lines, in the same Node process, for
// `socket_instructions.ts`: the main thread's instructions per request
// then hold the server and this client, and no load generator or other
// process takes part. Arguments: bundle, server, group, count, port.
// Protocol on stdin, one line each: "path kind" (kind get, form or json)
// -> warm-up, then the status line and " ready"; any line -> `count`
// requests, then "done"; any line -> the next scenario; "" ends.
import { connect } from "node:net";
import { Buffer } from "node:buffer";
import process from "node:process";

const [bundle, name, group, count, portText, orderBody] = process.argv.slice(2);
const port = Number(portText);
const realLog = console.log;
let listening;
const ready = new Promise((resolve) => listening = resolve);
// The server prints "ready" when listening: that is not for stdout here.
console.log = (...args) => {
  if (String(args[0]).includes("ready")) listening();
  else realLog(...args);
};
process.argv = [process.argv[0], bundle, name, String(port), group];
await import(bundle);
await ready;
const socket = connect(port, "127.0.0.1");
socket.setNoDelay(true);
socket.setEncoding("latin1");
let received = "";
let wake;
socket.on("data", (chunk) => {
  received += chunk;
  wake?.();
});
await new Promise((resolve) => socket.once("connect", resolve));
let lastHead = "";
/** Waits for one whole response (Content-Length or chunked) and drops it. */
async function response() {
  for (;;) {
    const end = received.indexOf("\r\n\r\n");
    if (end !== -1) {
      const head = received.slice(0, end).toLowerCase();
      const length = /\r\ncontent-length: *(\d+)/.exec(head);
      if (length !== null) {
        const total = end + 4 + Number(length[1]);
        if (received.length >= total) {
          lastHead = received.slice(0, end);
          received = received.slice(total);
          return;
        }
      } else {
        const last = received.indexOf("\r\n0\r\n\r\n", end);
        if (last !== -1) {
          lastHead = received.slice(0, end);
          received = received.slice(last + 7);
          return;
        }
      }
    }
    await new Promise((resolve) => wake = resolve);
    wake = undefined;
  }
}
const FORM = "text=hello+world&n=1";
let cookie = "";
async function raw(text) {
  socket.write(text);
  await response();
}
const head = (method, path, extra) =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: */*\r\nUser-Agent: bench\r\n${
    cookie ? `Cookie: ${cookie}\r\n` : ""
  }${extra}\r\n`;
if (group === "app") {
  // The signed-in page sends the session cookie GET /login set.
  await raw(head("GET", "/login", ""));
  cookie = /set-cookie: *([^;\r\n]+)/i.exec(lastHead)?.[1] ?? "";
}
const send = (path, kind) =>
  kind === "form"
    ? raw(
      head(
        "POST",
        path,
        `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${FORM.length}\r\n`,
      ) + FORM,
    )
    : kind === "json"
    ? raw(
      head(
        "POST",
        path,
        `Content-Type: application/json\r\nContent-Length: ${
          Buffer.byteLength(orderBody)
        }\r\n`,
      ) + orderBody,
    )
    : raw(head("GET", path, ""));
const lines = (async function* () {
  let buffer = "";
  for await (const chunk of process.stdin) {
    buffer += chunk;
    let newline;
    while ((newline = buffer.indexOf("\n")) !== -1) {
      yield buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
    }
  }
})();
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
for (;;) {
  const { value: line, done } = await lines.next();
  if (done || line === "") break;
  const [path, kind] = line.split(" ");
  for (let i = 0; i < 3000; i++) await send(path, kind);
  // Time for the JIT's helper threads to finish what the warm-up queued
  // (under valgrind on a loaded machine they lag), then its code in use.
  await pause(5000);
  for (let i = 0; i < 500; i++) await send(path, kind);
  await pause(3000);
  for (let i = 0; i < 200; i++) await send(path, kind);
  process.stdout.write(lastHead.split("\r\n")[0] + " ready\n");
  await lines.next();
  for (let i = 0; i < Number(count); i++) await send(path, kind);
  process.stdout.write("done\n");
  await lines.next();
}
process.exit(0);
