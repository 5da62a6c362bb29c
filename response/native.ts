/**
 * The runtime's `Response` class, read once. Deno defines the global
 * `Response` as a lazy getter, so every read of it is a call: about 30 ns
 * for `value instanceof Response` against about 4 ns with a constant
 * (BENCHMARKS.md, "HTTP load"). The package's per-request paths use this
 * instead. Not a public export of the package.
 *
 * @module
 */

import { PackageResponse } from "../runtime/response.ts";

/**
 * The global `Response` class, as it was when the package loaded (on Node,
 * one that builds with the global as it is then; see `runtime/response.ts`).
 */
export const NativeResponse: typeof Response = PackageResponse;
