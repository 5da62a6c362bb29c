/**
 * The `Response` class the package builds its own answers with.
 *
 * On Deno and Bun: the global `Response`, read once (Deno defines it as a
 * lazy getter, about 30 ns a read). On Node: a constructor that builds with
 * the global `Response` as it is at that moment, because Node's adapters
 * to `node:http` may install their own class after the package loaded
 * (`@hono/node-server` does, and writes those responses without reading a
 * body stream, about twice as fast). Its `prototype` is the native one,
 * so `instanceof` holds for both classes (the adapter's extends it).
 *
 * @module
 */

function nodeForwarding(): typeof Response {
  const Native = Response;
  function ForwardingResponse(
    body?: BodyInit | null,
    init?: ResponseInit,
  ): Response {
    return new globalThis.Response(body, init);
  }
  ForwardingResponse.prototype = Native.prototype;
  Object.setPrototypeOf(ForwardingResponse, Native);
  return ForwardingResponse as unknown as typeof Response;
}

const forward = typeof (globalThis as { Deno?: unknown }).Deno ===
    "undefined" &&
  typeof (globalThis as { Bun?: unknown }).Bun === "undefined" &&
  typeof (globalThis as { process?: { versions?: { node?: string } } })
      .process?.versions?.node === "string";

/** See the module docs. */
export const PackageResponse: typeof Response = forward
  ? nodeForwarding()
  : Response;
