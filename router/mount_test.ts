import assert from "node:assert/strict";
import { createRouter, type Middleware } from "@fetchkit/toolkit/fetch-router";
import { resources, route } from "@fetchkit/toolkit/fetch-router/routes";

const get = (path: string, init?: RequestInit) =>
  new Request(`http://localhost${path}`, init);

Deno.test("mount: patterns are joined below the prefix, params from both", async () => {
  const router = createRouter();
  router.mount("/orgs/:orgId", (org) => {
    assert.equal(org.prefix, "/orgs/:orgId");
    org.get("/", ({ params }) => new Response(`org ${params.orgId}`));
    org.get("members/:memberId", ({ params }) => {
      const both: { orgId: string; memberId: string } = params;
      return Response.json(both);
    });
    // A child parameter of the same name wins.
    org.get("/shadow/:orgId", ({ params }) => new Response(params.orgId));
  });
  router.mount("api/", (api) => api.post("/items", () => new Response("made")));
  assert.equal(await (await router.fetch(get("/orgs/7"))).text(), "org 7");
  assert.deepEqual(
    await (await router.fetch(get("/orgs/7/members/3"))).json(),
    { orgId: "7", memberId: "3" },
  );
  assert.equal(
    await (await router.fetch(get("/orgs/7/shadow/child"))).text(),
    "child",
  );
  assert.equal(
    await (await router.fetch(get("/api/items", { method: "POST" }))).text(),
    "made",
  );
  // Strict trailing slashes, as for any route.
  assert.equal((await router.fetch(get("/orgs/7/"))).status, 404);
});

Deno.test("mount: middleware runs router, outer mount, inner mount, controller, action", async () => {
  const trace: string[] = [];
  const mark = (name: string): Middleware => async (_context, next) => {
    trace.push(name);
    return await next();
  };
  const router = createRouter({ middleware: [mark("router")] });
  router.get("/outside", () => new Response("outside"));
  router.mount("/admin", (admin) => {
    admin.use(mark("admin1"), mark("admin2"));
    admin.mount("/v1", (v1) => {
      v1.use(mark("v1"));
      v1.map(resources("posts", { only: ["index"] }), {
        middleware: [mark("controller")],
        actions: {
          index: {
            middleware: [mark("action")],
            handler: () => {
              trace.push("handler");
              return new Response("posts");
            },
          },
        },
      });
      v1.get("/direct", mark("route"), () => new Response("direct"));
    });
    admin.get("/home", () => new Response("home"));
  });
  assert.equal(
    await (await router.fetch(get("/admin/v1/posts"))).text(),
    "posts",
  );
  assert.deepEqual(trace, [
    "router",
    "admin1",
    "admin2",
    "v1",
    "controller",
    "action",
    "handler",
  ]);
  trace.length = 0;
  await router.fetch(get("/admin/v1/direct"));
  assert.deepEqual(trace, ["router", "admin1", "admin2", "v1", "route"]);
  trace.length = 0;
  await router.fetch(get("/admin/home"));
  assert.deepEqual(trace, ["router", "admin1", "admin2"]);
  trace.length = 0;
  await router.fetch(get("/outside"));
  assert.deepEqual(trace, ["router"]);
});

Deno.test("mount: a route map maps inside, typed with the prefix's params", async () => {
  const router = createRouter();
  const routes = route({ show: "/posts/:id", list: "/posts" });
  router.mount("/blogs/:blogId", (blog) => {
    blog.map(routes, {
      actions: {
        show: ({ params }) => new Response(`${params.blogId}/${params.id}`),
        list: ({ params }) => new Response(`list ${params.blogId}`),
      },
    });
    blog.map(routes.show, ({ params }) => new Response(params.blogId));
  });
  assert.equal(
    await (await router.fetch(get("/blogs/b/posts/9"))).text(),
    "b/9",
  );
  assert.equal(
    await (await router.fetch(get("/blogs/b/posts"))).text(),
    "list b",
  );
});

Deno.test("mount: unknown paths get the router's 404 or defaultHandler; 405 and HEAD as usual", async () => {
  const router = createRouter();
  router.mount("/admin", (admin) => {
    admin.use(() => new Response("mount middleware ran", { status: 418 }));
    admin.get("/users", () => new Response("users"));
  });
  const miss = await router.fetch(get("/admin/nothing"));
  assert.equal(miss.status, 404);
  assert.equal(await miss.text(), "Not Found");
  const wrong = await router.fetch(get("/admin/users", { method: "DELETE" }));
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get("allow"), "GET, HEAD");
  assert.equal(await wrong.text(), "Method Not Allowed");
  const head = await router.fetch(get("/admin/users", { method: "HEAD" }));
  assert.equal(head.status, 418);
  assert.equal(head.body, null);

  const custom = createRouter({
    defaultHandler: () => new Response("custom", { status: 404 }),
  });
  custom.mount(
    "/admin",
    (admin) => admin.get("/users", () => new Response("u")),
  );
  assert.equal(await (await custom.fetch(get("/admin/x"))).text(), "custom");
});

Deno.test("mount: one match per request (router middleware and defaultHandler run once)", async () => {
  let routerRuns = 0;
  let misses = 0;
  const router = createRouter({
    middleware: [() => {
      routerRuns++;
    }],
    defaultHandler: () => {
      misses++;
      return new Response("none", { status: 404 });
    },
  });
  router.mount(
    "/a",
    (a) => a.mount("/b", (b) => b.get("/c", () => new Response("c"))),
  );
  assert.equal(await (await router.fetch(get("/a/b/c"))).text(), "c");
  await router.fetch(get("/a/b/x"));
  assert.deepEqual([routerRuns, misses], [2, 1]);
});

Deno.test("mount: use() after a route, or a define that is not a function, throws a TypeError", () => {
  const router = createRouter();
  assert.throws(
    () =>
      router.mount("/admin", (admin) => {
        admin.get("/", () => new Response("x"));
        admin.use(() => {});
      }),
    {
      name: "TypeError",
      message:
        'use() in router.mount("/admin") was called after routes were added there; call it first, so every route of the section runs it',
    },
  );
  assert.throws(
    // @ts-expect-error: define must be a function
    () => router.mount("/x", {}),
    { name: "TypeError", message: /define must be a function/ },
  );
  assert.throws(
    // @ts-expect-error: use takes middleware functions
    () => router.mount("/y", (y) => y.use("nope")),
    { name: "TypeError", message: /takes middleware functions, got string/ },
  );
});

Deno.test("mount: types carry the prefix's params and refuse unknown ones", () => {
  const router = createRouter();
  router.mount("/orgs/:orgId", (org) => {
    org.mount("/teams/:teamId", (team) => {
      team.get("/", ({ params }) => {
        const ids: { orgId: string; teamId: string } = params;
        // @ts-expect-error: no such param
        params.nope;
        return new Response(ids.orgId);
      });
    });
  });
});
