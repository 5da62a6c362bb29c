/**
 * Generates the same API twice, for the type-speed benchmark: as a route
 * map with schemas (ours: `router.map()` + `createClient()`) and as a Hono
 * app (`app.get/post/...` chained with `sValidator`, + `hc<typeof app>`).
 *
 * The API is made of units of 10 routes, each route with a schema:
 * - `r{i}`: a collection, `resources()` with index/show/create/update/destroy
 *   (query, params, body and response schemas);
 * - `n{i}`: a nested collection below `r{i}/:parentId/items`, with
 *   index/show/create;
 * - `f{i}`: a form, GET (response schema) and POST (form body schema).
 *
 * Both sides import one `schemas.ts` (distinct zod schemas per unit), and a
 * client module calls every route and reads a typed field of its data.
 *
 * @module
 */

/** The files of one generated app, by name. */
export type Files = Record<string, string>;

function schemas(units: number, nonce: string): string {
  let out = `// ${nonce}\nimport * as z from "zod";\n\n` +
    `export const Id = z.object({ id: z.coerce.number().int() });\n` +
    `export const NestedId = z.object({ parentId: z.coerce.number().int(), id: z.coerce.number().int() });\n` +
    `export const Parent = z.object({ parentId: z.coerce.number().int() });\n` +
    `export const Query = z.object({ limit: z.coerce.number().int().min(1).max(100).optional() });\n`;
  for (let i = 0; i < units; i++) {
    out += `
export const Input${i} = z.object({ name: z.string(), n${i}: z.number(), tags: z.array(z.string()) });
export const Item${i} = z.object({ id: z.number(), name: z.string(), n${i}: z.number(), tags: z.array(z.string()) });
export const Items${i} = z.array(Item${i});
export const Child${i} = z.object({ id: z.number(), parentId: z.number(), c${i}: z.string() });
export const ChildInput${i} = z.object({ c${i}: z.string() });
export const Children${i} = z.array(Child${i});
export const Form${i} = z.object({ email: z.string(), f${i}: z.string() });
export const Page${i} = z.object({ title: z.string(), p${i}: z.boolean() });
`;
  }
  return out;
}

/** Our side: routes.ts (the contract), server.ts, client.ts. */
export function ours(units: number, nonce: string): Files {
  let routes = `// ${nonce}
import { form, resources, route } from "@fetchkit/toolkit/fetch-router/routes";
import * as s from "./schemas.ts";

export const routes = route({
`;
  let actions = "";
  let calls = "";
  for (let i = 0; i < units; i++) {
    routes += `  r${i}: resources("r${i}", {
    only: ["index", "show", "create", "update", "destroy"],
    schemas: {
      index: { query: s.Query, response: s.Items${i} },
      show: { params: s.Id, response: s.Item${i} },
      create: { body: s.Input${i}, response: s.Item${i} },
      update: { params: s.Id, body: s.Input${i}, response: s.Item${i} },
      destroy: { params: s.Id },
    },
  }),
  n${i}: resources("r${i}/:parentId/items", {
    only: ["index", "show", "create"],
    schemas: {
      index: { params: s.Parent, response: s.Children${i} },
      show: { params: s.NestedId, response: s.Child${i} },
      create: { params: s.Parent, body: s.ChildInput${i}, response: s.Child${i} },
    },
  }),
  f${i}: form("f${i}", {
    schemas: { index: { response: s.Page${i} }, action: { body: s.Form${i} } },
  }),
`;
    actions += `    r${i}: {
      actions: {
        index: ({ input }) => Response.json([{ id: input.query.limit ?? 1, name: "a", n${i}: 1, tags: [] }]),
        show: ({ input }) => Response.json({ id: input.params.id, name: "a", n${i}: 1, tags: [] }),
        create: ({ input }) => Response.json({ id: 1, ...input.body }, { status: 201 }),
        update: ({ input }) => Response.json({ id: input.params.id, ...input.body }),
        destroy: ({ input }) => new Response(String(input.params.id)),
      },
    },
    n${i}: {
      actions: {
        index: ({ input }) => Response.json([{ id: 1, parentId: input.params.parentId, c${i}: "c" }]),
        show: ({ input }) => Response.json({ id: input.params.id, parentId: input.params.parentId, c${i}: "c" }),
        create: ({ input }) => Response.json({ id: 1, parentId: input.params.parentId, ...input.body }, { status: 201 }),
      },
    },
    f${i}: {
      actions: {
        index: () => Response.json({ title: "f", p${i}: true }),
        action: ({ input }) => new Response(input.body.email + input.body.f${i}),
      },
    },
`;
    calls += `
  {
    const a = await client.r${i}.index({ query: { limit: 5 } });
    if (a.ok) total += a.data[0].n${i};
    const b = await client.r${i}.show({ params: { id: 1 } });
    if (b.ok) total += b.data.n${i};
    const c = await client.r${i}.create({ body: { name: "x", n${i}: 1, tags: [] } });
    if (c.ok) total += c.data.id;
    const d = await client.r${i}.update({ params: { id: 1 }, body: { name: "x", n${i}: 2, tags: ["t"] } });
    if (d.ok) total += d.data.n${i};
    const e = await client.r${i}.destroy({ params: { id: 1 } });
    total += e.status;
    const f = await client.n${i}.index({ params: { parentId: 1 } });
    if (f.ok) total += f.data[0].parentId;
    const g = await client.n${i}.show({ params: { parentId: 1, id: 2 } });
    if (g.ok) total += g.data.c${i}.length;
    const h = await client.n${i}.create({ params: { parentId: 1 }, body: { c${i}: "c" } });
    if (h.ok) total += h.data.id;
    const j = await client.f${i}.index();
    if (j.ok) total += j.data.p${i} ? 1 : 0;
    const k = await client.f${i}.action({ body: { email: "a@b.c", f${i}: "v" } });
    total += k.status;
  }
`;
  }
  routes += "});\n";
  const server = `// ${nonce}
import { createRouter } from "@fetchkit/toolkit/fetch-router";
import { routes } from "./routes.ts";

export const router = createRouter();
router.map(routes, {
  actions: {
${actions}  },
});
`;
  const client = `// ${nonce}
import { createClient } from "@fetchkit/toolkit/client";
import { routes } from "./routes.ts";

const client = createClient(routes, { baseUrl: "http://localhost" });

export async function useAll(): Promise<number> {
  let total = 0;
${calls}
  return total;
}
`;
  return {
    "schemas.ts": schemas(units, nonce),
    "routes.ts": routes,
    "server.ts": server,
    "client.ts": client,
  };
}

/** Hono's side: server.ts (the chained app, its type exported), client.ts. */
export function hono(units: number, nonce: string): Files {
  let chain = "";
  let calls = "";
  for (let i = 0; i < units; i++) {
    chain += `
  .get("/r${i}", sValidator("query", s.Query), (c) => c.json([{ id: c.req.valid("query").limit ?? 1, name: "a", n${i}: 1, tags: [] as string[] }]))
  .get("/r${i}/:id", sValidator("param", s.Id), (c) => c.json({ id: c.req.valid("param").id, name: "a", n${i}: 1, tags: [] as string[] }))
  .post("/r${i}", sValidator("json", s.Input${i}), (c) => c.json({ id: 1, ...c.req.valid("json") }, 201))
  .put("/r${i}/:id", sValidator("param", s.Id), sValidator("json", s.Input${i}), (c) => c.json({ id: c.req.valid("param").id, ...c.req.valid("json") }))
  .delete("/r${i}/:id", sValidator("param", s.Id), (c) => c.text(String(c.req.valid("param").id)))
  .get("/r${i}/:parentId/items", sValidator("param", s.Parent), (c) => c.json([{ id: 1, parentId: c.req.valid("param").parentId, c${i}: "c" }]))
  .get("/r${i}/:parentId/items/:id", sValidator("param", s.NestedId), (c) => c.json({ id: c.req.valid("param").id, parentId: c.req.valid("param").parentId, c${i}: "c" }))
  .post("/r${i}/:parentId/items", sValidator("param", s.Parent), sValidator("json", s.ChildInput${i}), (c) => c.json({ id: 1, parentId: c.req.valid("param").parentId, ...c.req.valid("json") }, 201))
  .get("/f${i}", (c) => c.json({ title: "f", p${i}: true }))
  .post("/f${i}", sValidator("form", s.Form${i}), (c) => c.text(c.req.valid("form").email + c.req.valid("form").f${i}))`;
    calls += `
  {
    const a = await client.r${i}.$get({ query: { limit: "5" } });
    if (a.ok) total += (await a.json())[0].n${i};
    const b = await client.r${i}[":id"].$get({ param: { id: "1" } });
    if (b.ok) total += (await b.json()).n${i};
    const c = await client.r${i}.$post({ json: { name: "x", n${i}: 1, tags: [] } });
    if (c.ok) total += (await c.json()).id;
    const d = await client.r${i}[":id"].$put({ param: { id: "1" }, json: { name: "x", n${i}: 2, tags: ["t"] } });
    if (d.ok) total += (await d.json()).n${i};
    const e = await client.r${i}[":id"].$delete({ param: { id: "1" } });
    total += e.status;
    const f = await client.r${i}[":parentId"].items.$get({ param: { parentId: "1" } });
    if (f.ok) total += (await f.json())[0].parentId;
    const g = await client.r${i}[":parentId"].items[":id"].$get({ param: { parentId: "1", id: "2" } });
    if (g.ok) total += (await g.json()).c${i}.length;
    const h = await client.r${i}[":parentId"].items.$post({ param: { parentId: "1" }, json: { c${i}: "c" } });
    if (h.ok) total += (await h.json()).id;
    const j = await client.f${i}.$get();
    if (j.ok) total += (await j.json()).p${i} ? 1 : 0;
    const k = await client.f${i}.$post({ form: { email: "a@b.c", f${i}: "v" } });
    total += k.status;
  }
`;
  }
  const server = `// ${nonce}
import { Hono } from "hono";
import { sValidator } from "@hono/standard-validator";
import * as s from "./schemas.ts";

export const app = new Hono()${chain};

export type App = typeof app;
`;
  const client = `// ${nonce}
import { hc } from "hono/client";
import type { App } from "./server.ts";

const client = hc<App>("http://localhost");

export async function useAll(): Promise<number> {
  let total = 0;
${calls}
  return total;
}
`;
  return {
    "schemas.ts": schemas(units, nonce),
    "server.ts": server,
    "client.ts": client,
  };
}
