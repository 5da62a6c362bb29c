/**
 * The validated JSON scenario's parts, for `app_json.ts --parts`: the body
 * read and validated by `parseJson()` in a plain function (no router), and
 * the bare path (`request.json()` and the schema), each answering as the
 * apps do. Between them and the whole apps, the router's share shows.
 *
 * @module
 */
import { parseJson } from "@fetchkit/toolkit/validation";
import { orderAnswer, OrderSchema } from "../runtimes/_app_data.ts";

type Handler = (request: Request) => Promise<Response>;

/** `parseJson`, and `request.json()` + the schema, as handlers. */
export function parts(): Record<string, Handler> {
  return {
    parseJson: async (request) => {
      const result = await parseJson(request, OrderSchema);
      if (!result.success) throw new Error("refused");
      return Response.json(orderAnswer(result.value));
    },
    bare: async (request) => {
      const result = await OrderSchema["~standard"].validate(
        await request.json(),
      );
      if (result.issues !== undefined) throw new Error("refused");
      return Response.json(orderAnswer(result.value));
    },
  };
}
