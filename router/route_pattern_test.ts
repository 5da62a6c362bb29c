import assert from "node:assert/strict";
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { resources } from "@fetchkit/toolkit/fetch-router/routes";

Deno.test("context.routePattern: the matched route's full pattern, set by routing", async () => {
  const seen: (string | undefined)[] = [];
  const router = createRouter({
    middleware: [async (context, next) => {
      seen.push(context.routePattern); // before routing
      const response = await next();
      seen.push(context.routePattern); // after
      return response;
    }],
  });
  router.get("/posts/:id", ({ routePattern }) => new Response(routePattern));
  router.mount("/orgs/:org", (org) => {
    org.use((context, next) => {
      seen.push(context.routePattern); // inside the route's chain
      return next();
    });
    org.map(resources("members", { only: ["show"] }), {
      actions: { show: ({ routePattern }) => new Response(routePattern) },
    });
  });

  const post = await router.fetch(new Request("http://x/posts/42"));
  assert.equal(await post.text(), "/posts/:id");
  const member = await router.fetch(
    new Request("http://x/orgs/acme/members/7"),
  );
  assert.equal(await member.text(), "/orgs/:org/members/:id");
  const missing = await router.fetch(new Request("http://x/nowhere"));
  assert.equal(missing.status, 404);
  const wrongMethod = await router.fetch(
    new Request("http://x/posts/42", { method: "DELETE" }),
  );
  assert.equal(wrongMethod.status, 405);
  assert.deepEqual(seen, [
    undefined,
    "/posts/:id",
    undefined,
    "/orgs/:org/members/:id",
    "/orgs/:org/members/:id",
    undefined,
    undefined,
    undefined,
    undefined,
  ]);
});
