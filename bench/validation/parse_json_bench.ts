// parseJson() against the bare path it replaces: `await request.json()`
// and the same schema, on a 1 KB and a 100 KB body, in the same run. The
// requests declare their Content-Length, as HTTP clients do (in process, a
// string body has none); "chunked" ones are streams without it.
//
//   deno bench --allow-all bench/validation/parse_json_bench.ts
import { parseJson } from "@fetchkit/toolkit/validation";
import { LARGE, Order, SMALL } from "./_fixtures.ts";

const encoder = new TextEncoder();
// Bytes, as a server's requests carry (a string body would spare
// `request.json()` its decoding in process).
const bytesOf = new Map(
  [SMALL, LARGE].map((text) => [text, encoder.encode(text)]),
);
const post = (body: string) =>
  new Request("http://localhost/orders", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "content-length": String(bytesOf.get(body)!.length),
    },
    body: bytesOf.get(body)!,
  });

async function bare(body: string): Promise<unknown> {
  const value = await post(body).json();
  const result = Order.safeParse(value);
  if (!result.success) throw new Error("refused");
  return result.data;
}

async function ours(body: string): Promise<unknown> {
  const result = await parseJson(post(body), Order);
  if (!result.success) throw new Error("refused");
  return result.value;
}

for (const [size, body] of [["1 KB", SMALL], ["100 KB", LARGE]] as const) {
  const group = `json ${size} (${body.length} bytes)`;
  Deno.bench({
    name: `request.json() + schema, ${size}`,
    group,
    baseline: true,
    fn: async () => {
      await bare(body);
    },
  });
  Deno.bench({
    name: `parseJson, ${size}`,
    group,
    fn: async () => {
      await ours(body);
    },
  });
}
