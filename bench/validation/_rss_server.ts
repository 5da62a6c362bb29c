// The server of rss_uploads.ts: parseJson with its defaults (1 MiB) on
// POST /json; GET /rss gives its peak and current RSS, sampled every 20 ms;
// POST /baseline resets the peak. Prints "listening <port>".
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { parseJson } from "@fetchkit/toolkit/validation";
import * as z from "zod";

let peak = 0;
const sample = () => {
  const rss = Deno.memoryUsage().rss;
  if (rss > peak) peak = rss;
};
setInterval(sample, 20);

let refused = 0;
const router = createRouter();
router.post("/json", async ({ request }) => {
  try {
    const result = await parseJson(request, z.unknown());
    return Response.json(result.success);
  } catch (error) {
    refused++;
    throw error;
  }
});
router.get("/rss", () => {
  sample();
  return Response.json({ peak, rss: Deno.memoryUsage().rss, refused });
});
router.post("/baseline", () => {
  peak = 0;
  sample();
  return Response.json({ peak });
});

Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, router.fetch);
