/**
 * The CSP nonce of the request being handled, for code that builds a
 * response without the request's context: `secureHeaders()` runs the rest
 * of the chain inside {@linkcode runWithCspNonce} when its policy uses
 * `'nonce'`, and `createHtmlResponse()` reads {@linkcode currentCspNonce}
 * for the scripts of a streamed page. Carried by `AsyncLocalStorage`, so it
 * follows the handler's awaits and timers and never leaks to another
 * request.
 *
 * The nonce is current while the chain after `secureHeaders()` runs, until
 * that chain returns its response (which is when `createHtmlResponse()`
 * reads it). Work a handler leaves running after its response is returned
 * (a timer set and not awaited) must not rely on it: there it may read
 * its own request's nonce or none, never another's.
 *
 * On Node the first `run()` of an `AsyncLocalStorage` turns on V8's
 * promise hooks and Node's async-hook bookkeeping for every promise, tick
 * and timer of the process, also of requests that never use the scope
 * (a JSON route, a cached page). So on Node the scope counts the chains
 * inside it and calls the storage's `disable()` when the count returns to
 * 0: Node removes its hooks when no `AsyncLocalStorage` of the process is
 * enabled (another one of the app keeps them on, and keeps working), and
 * the next `run()` enables them again. Deno and Bun carry the context
 * without such hooks, and their storage is left enabled.
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
  disable?(): void;
}

type GetBuiltinModule = (id: string) => unknown;

interface ProcessLike {
  getBuiltinModule?: GetBuiltinModule;
  versions?: { node?: string; bun?: string; deno?: string };
}

let scope: Scope | null | undefined;
// Node only: whether to disable the storage when no chain is inside it.
let toggles = false;
// The chains inside the scope now (counted only when `toggles`).
let inside = 0;
// Whether the storage is enabled (it is from its first `run()` on).
let enabled = false;

function nonceScope(): Scope | null {
  if (scope !== undefined) return scope;
  const process = (globalThis as { process?: ProcessLike }).process;
  let hooks: { AsyncLocalStorage?: new () => Scope } | undefined;
  try {
    hooks = process?.getBuiltinModule?.("node:async_hooks") as typeof hooks;
  } catch {
    hooks = undefined;
  }
  scope = hooks?.AsyncLocalStorage ? new hooks.AsyncLocalStorage() : null;
  const versions = process?.versions;
  toggles = scope !== null && typeof scope.disable === "function" &&
    typeof versions?.node === "string" && versions.bun === undefined &&
    versions.deno === undefined &&
    (globalThis as { Deno?: unknown }).Deno === undefined;
  return scope;
}

// Node: the chain runs inside the storage, counted, and the storage is
// disabled when the last chain inside it has returned.
async function runCounted<T>(
  current: Scope,
  nonce: string,
  fn: () => T | Promise<T>,
): Promise<T> {
  inside++;
  enabled = true;
  try {
    return await current.run(nonce, fn);
  } finally {
    if (--inside === 0) {
      current.disable!();
      enabled = false;
    }
  }
}

/**
 * Runs `fn` with `nonce` as the current request's CSP nonce, until the
 * promise `fn` returns settles (or `fn` returns or throws).
 */
export function runWithCspNonce<T>(
  nonce: string,
  fn: () => T | Promise<T>,
): T | Promise<T> {
  const current = nonceScope();
  if (current === null) return fn();
  return toggles ? runCounted(current, nonce, fn) : current.run(nonce, fn);
}

/**
 * Whether the scope's storage is enabled now, which on Node keeps the
 * process's promise and async hooks on (for tests: false on Node once no
 * chain is inside it).
 */
export function cspNonceScopeEnabled(): boolean {
  return toggles ? enabled : scope !== undefined && scope !== null;
}

/** The current request's CSP nonce, when `secureHeaders()` made one. */
export function currentCspNonce(): string | undefined {
  return (scope ?? null)?.getStore();
}
