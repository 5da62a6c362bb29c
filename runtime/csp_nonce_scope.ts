/**
 * The CSP nonce of the request being handled, for code that builds a
 * response without the request's context: `secureHeaders()` runs the rest
 * of the chain inside {@linkcode runWithCspNonce} when its policy uses
 * `'nonce'`, and `createHtmlResponse()` reads {@linkcode currentCspNonce}
 * for the scripts of a streamed page. Carried by `AsyncLocalStorage`
 * (`node:async_hooks`, on Deno, Node and Bun), so it follows the handler's
 * awaits and never leaks to another request.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<string>();

/** Runs `fn` with `nonce` as the current request's CSP nonce. */
export function runWithCspNonce<T>(nonce: string, fn: () => T): T {
  return scope.run(nonce, fn);
}

/** The current request's CSP nonce, when `secureHeaders()` made one. */
export function currentCspNonce(): string | undefined {
  return scope.getStore();
}
