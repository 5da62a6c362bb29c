import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { etag } from "@fetchkit/toolkit/etag-middleware";
const path = await Deno.makeTempFile();
await Deno.writeFile(path, new Uint8Array(Number(Deno.args[0] ?? 5000)).fill(97));
const router = createRouter({ middleware: [etag()] });
router.get("/f", async () => {
  const file = await Deno.open(path);
  return new Response(file.readable, { headers: { "Content-Type": "text/plain" } });
});
router.get("/g", async () => {
  const file = await Deno.open(path);
  const r = new Response(file.readable, { headers: { "Content-Type": "text/plain" } });
  await new Promise((r) => setTimeout(r, 1));
  return r;
});
for (const p of ["/f", "/g"]) {
  let tagged = 0;
  for (let i = 0; i < 100; i++) {
    const res = await router.fetch(new Request("http://x" + p));
    if (res.headers.get("etag")) tagged++;
    await res.arrayBuffer();
  }
  console.log(p, tagged);
}
