// Run by deno_otel_test.ts with OTEL_DENO=true: serves a router with
// tracing() on 127.0.0.1, sends itself a few requests, and exits (Deno
// then exports the spans to OTEL_EXPORTER_OTLP_ENDPOINT).
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { tracing } from "@fetchkit/toolkit/tracing-middleware";
import { withTimeout } from "@fetchkit/toolkit/store";

const router = createRouter({ middleware: [tracing({ storeSpans: true })] });
router.get("/posts/:id", ({ params }) => new Response(`post ${params.id}`));
router.get("/stored", async () => {
  const kv = await Deno.openKv(":memory:");
  try {
    const entry = await withTimeout(() => kv.get(["k"]), 1000, {
      store: "Deno KV",
      what: "read k",
    });
    return new Response(String(entry.value));
  } finally {
    kv.close();
  }
});
router.get("/boom", () => {
  throw new RangeError("out of range");
});

console.error = () => {}; // the router logs the /boom error
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  router.fetch,
);
const base = `http://127.0.0.1:${server.addr.port}`;
for (const id of ["1", "2"]) await (await fetch(`${base}/posts/${id}`)).text();
await (await fetch(`${base}/posts/3`, {
  headers: {
    traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
  },
})).text();
await (await fetch(`${base}/boom`)).text();
await (await fetch(`${base}/stored`)).text();
await (await fetch(`${base}/nowhere`)).text();
await server.shutdown();
