// A Deno.serve app with methodOverride() and formData(); the warning test
// runs it in a process of its own and reads its stderr.
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { methodOverride } from "@fetchkit/toolkit/method-override-middleware";
import { formData } from "@fetchkit/toolkit/form-data-middleware";

const router = createRouter({ middleware: [methodOverride()] });
router.put(
  "/x",
  formData(),
  (context) => new Response(`put ${context.get(FormData)?.get("a")}`),
);
const server = Deno.serve(
  { hostname: "127.0.0.1", port: 0, onListen() {} },
  router.fetch,
);
const response = await fetch(`http://127.0.0.1:${server.addr.port}/x`, {
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: "_method=PUT&a=1",
});
console.log(response.status, await response.text());
await server.shutdown();
