// Bodies and schemas shared by the validation benchmarks: an order of
// `items` objects, about 1 KB or 100 KB of JSON, and the same schema in zod.
import * as z from "zod";

/** The order schema every contender validates with. */
export const Order = z.object({
  customer: z.object({ email: z.string(), name: z.string() }),
  items: z.array(z.object({
    sku: z.string(),
    qty: z.number().int().min(1),
    price: z.number().nonnegative(),
    note: z.string().optional(),
  })),
});

/** JSON text of an order with `count` items. */
export function orderJson(count: number): string {
  return JSON.stringify({
    customer: { email: "ada@example.com", name: "Ada Lovelace" },
    items: Array.from({ length: count }, (_, i) => ({
      sku: `SKU-${i.toString().padStart(6, "0")}`,
      qty: 1 + (i % 5),
      price: 9.99 + i,
      note: i % 3 === 0 ? "gift wrap, please" : undefined,
    })),
  });
}

/** About 1 KB: 12 items. */
export const SMALL = orderJson(12);
/** About 100 KB: 1,900 items. */
export const LARGE = orderJson(1900);
