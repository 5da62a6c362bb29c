/**
 * The CSP nonce of the request being handled, for code that builds a
 * response without the request's context: `secureHeaders()` runs the rest
 * of the chain inside {@linkcode runWithCspNonce} when its policy uses
 * `'nonce'`, and `createHtmlResponse()` reads {@linkcode currentCspNonce}
 * for the scripts of a streamed page. Carried by `AsyncLocalStorage`, so it
 * follows the handler's awaits and never leaks to another request.
 *
 * `AsyncLocalStorage` is looked up on first use through
 * `process.getBuiltinModule("node:async_hooks")` (Deno, Node 20.16+, Bun,
 * workerd with `nodejs_compat`), not imported: a static `node:async_hooks`
 * import stops the module from loading where that module is missing (a
 * Worker without `nodejs_compat`). There the scope is off and a streamed
 * page's handler passes `nonce` itself.
 *
 * @module
 */

interface Scope {
  run<T>(store: string, fn: () => T): T;
  getStore(): string | undefined;
}

type GetBuiltinModule = (id: string) => unknown;

let scope: Scope | null | undefined;

function nonceScope(): Scope | null {
  if (scope !== undefined) return scope;
  const process = (globalThis as {
    process?: { getBuiltinModule?: GetBuiltinModule };
  }).process;
  let hooks: { AsyncLocalStorage?: new () => Scope } | undefined;
  try {
    hooks = process?.getBuiltinModule?.("node:async_hooks") as typeof hooks;
  } catch {
    hooks = undefined;
  }
  scope = hooks?.AsyncLocalStorage ? new hooks.AsyncLocalStorage() : null;
  return scope;
}

/** Runs `fn` with `nonce` as the current request's CSP nonce. */
export function runWithCspNonce<T>(nonce: string, fn: () => T): T {
  const current = nonceScope();
  return current === null ? fn() : current.run(nonce, fn);
}

/** The current request's CSP nonce, when `secureHeaders()` made one. */
export function currentCspNonce(): string | undefined {
  return (scope ?? null)?.getStore();
}
