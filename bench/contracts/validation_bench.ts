// Per-request cost of validation through a contract (a route with `params`
// and `body` schemas: the router validates, the handler reads
// `context.input`) against the same route written by hand (`parseParams` +
// `parseJson` in the handler), whole requests through `router.fetch`, on a
// 1 KB and a 100 KB JSON body; plus the route with no validation, for
// scale. On a busy machine prefer `validation_cpu.ts` (interleaved CPU time).
//
//   deno bench --allow-all bench/contracts/validation_bench.ts
import {
  byHand,
  contract,
  LARGE,
  send,
  SMALL,
  unchecked,
} from "./_validation_apps.ts";

for (const [size, body] of [["1 KB", SMALL], ["100 KB", LARGE]] as const) {
  const group = `PUT /orders/:id, ${size} JSON`;
  Deno.bench({
    name: `by hand: parseParams + parseJson (${size})`,
    group,
    baseline: true,
    fn: () => send(byHand, body),
  });
  Deno.bench({
    name: `contract: params + body schemas (${size})`,
    group,
    fn: () => send(contract, body),
  });
  Deno.bench({
    name: `no validation: request.json() (${size})`,
    group,
    fn: () => send(unchecked, body),
  });
}
