// The routers bench/contracts/validation_* compare: the same PUT route with
// validation through the contract, by hand, and without validation.
import { createRouter, type Router } from "@fetchkit/toolkit/fetch-router";
import { route } from "@fetchkit/toolkit/fetch-router/routes";
import { parseJson, parseParams } from "@fetchkit/toolkit/validation";
import * as z from "zod";
import { LARGE, Order, SMALL } from "../validation/_fixtures.ts";

export { LARGE, SMALL };

const Id = z.object({ id: z.coerce.number().int().positive() });
const routes = route({
  update: { method: "PUT", pattern: "/orders/:id", params: Id, body: Order },
});

/** Validation by the router, from the route's schemas. */
export const contract: Router = createRouter();
contract.map(
  routes.update,
  ({ input }) =>
    new Response(String(input.params.id + input.body.items.length)),
);

/** The same checks written in the handler. */
export const byHand: Router = createRouter();
byHand.put("/orders/:id", async ({ params, request }) => {
  const id = await parseParams(params, Id);
  if (!id.success) {
    return Response.json({ fieldErrors: id.fieldErrors }, { status: 400 });
  }
  const body = await parseJson(request, Order);
  if (!body.success) {
    return Response.json({ fieldErrors: body.fieldErrors }, { status: 422 });
  }
  return new Response(String(id.value.id + body.value.items.length));
});

/** No validation at all, for scale. */
export const unchecked: Router = createRouter();
unchecked.put("/orders/:id", async ({ params, request }) => {
  const body = await request.json();
  return new Response(String(Number(params.id) + body.items.length));
});

const encoder = new TextEncoder();
const bytesOf = new Map(
  [SMALL, LARGE].map((text) => [text, encoder.encode(text)]),
);

/** Sends one PUT with `body` (bytes, with Content-Length) and reads the answer. */
export async function send(router: Router, body: string): Promise<void> {
  const bytes = bytesOf.get(body)!;
  const response = await router.fetch(
    new Request("http://localhost/orders/42", {
      method: "PUT",
      headers: {
        "content-type": "application/json",
        "content-length": String(bytes.length),
      },
      body: bytes,
    }),
  );
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  await response.text();
}
