/**
 * The notes API from a typed client: the same `routes.ts` the server maps,
 * so a wrong parameter or body is a type error here, and `data` is a `Note`.
 *
 *     TOKEN=$(deno run -P=api-token examples/api/token.ts)
 *     deno run --allow-net=127.0.0.1 examples/api/client.ts http://127.0.0.1:8010 "$TOKEN"
 *
 * Writes carry the bearer token (`headers`); reads would go without one.
 *
 * @module
 */
import { createClient } from "@fetchkit/toolkit/client";
import { routes } from "./routes.ts";

/**
 * Creates, lists, updates and deletes a note through `baseUrl` with a
 * bearer `token`; returns what it saw.
 */
export async function tour(
  baseUrl: string,
  token: string,
  fetch?: (request: Request) => Response | Promise<Response>,
): Promise<string[]> {
  const api = createClient(routes, {
    baseUrl,
    fetch,
    headers: { authorization: `Bearer ${token}` },
  });
  const log: string[] = [];

  const created = await api.notes.create({
    body: { title: "Groceries", tags: ["home"] },
  });
  if (!created.ok) throw new Error(`create: ${created.status}`);
  const { id } = created.data;
  log.push(`created ${id}: ${created.data.title}`);

  const invalid = await api.notes.create({ body: { title: "" } });
  log.push(`invalid: ${invalid.status} ${JSON.stringify(invalid.data)}`);

  const page = await api.notes.index({ query: { limit: 10 } });
  if (page.ok) log.push(`listed ${page.data.notes.length}`);

  const updated = await api.notes.update({
    params: { id },
    body: { title: "Groceries", body: "milk, eggs", tags: ["home"] },
  });
  if (updated.ok) log.push(`updated ${id}: ${updated.data.body}`);

  const shown = await api.notes.show({ params: { id } });
  if (shown.ok) log.push(`shown ${id}: ${shown.data.tags.join(",")}`);

  const deleted = await api.notes.destroy({ params: { id } });
  log.push(`deleted ${id}: ${deleted.status}`);

  const gone = await api.notes.show({ params: { id } });
  log.push(`gone ${id}: ${gone.status}`);
  return log;
}

if (import.meta.main) {
  const [baseUrl = "http://127.0.0.1:8010", token] = Deno.args;
  if (token === undefined) {
    console.error("usage: client.ts <baseUrl> <token> (token.ts prints one)");
    Deno.exit(2);
  }
  for (const line of await tour(baseUrl, token)) console.log(line);
}
