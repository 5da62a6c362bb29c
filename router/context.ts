import type {
  AnyContextKey,
  ContextLookup,
  ContextValue,
} from "./context_key.ts";
import { ContextKey } from "./context_key.ts";
import { PARAMS_PROTOTYPE } from "./_trie.ts";

/** Path parameters of a matched route, by name. */
export type Params = Record<string, string | undefined>;

/**
 * The first argument of every handler and middleware: the request, its
 * matched parameters, and a typed store for values that middleware passes
 * on (the session, the parsed form, the current user, ...).
 *
 * @example Read and write context values
 * ```ts
 * import { createContextKey, createRouter } from "@fetchkit/toolkit/fetch-router";
 *
 * const Started = createContextKey(0);
 * const router = createRouter({
 *   middleware: [(context, next) => {
 *     context.set(Started, performance.now());
 *     return next();
 *   }],
 * });
 * router.get("/posts/:id", (context) =>
 *   new Response(`post ${context.params.id} at ${context.get(Started)}`)
 * );
 * ```
 */
export class RequestContext<P extends Params = Params> {
  /** The incoming request. */
  readonly request: Request;
  /**
   * The method used for routing. It starts as `request.method`; router-level
   * middleware (such as `methodOverride()`) may change it before routing.
   */
  method: string;
  /** Path parameters of the matched route, percent-decoded. */
  params: P;
  #url: URL | undefined;
  #values: Map<unknown, unknown> | undefined;

  /**
   * Made by the router for each request; applications rarely create one,
   * except in tests of their middleware.
   *
   * @param request The incoming request.
   * @param params The matched path parameters.
   */
  constructor(request: Request, params?: P) {
    this.request = request;
    this.method = request.method;
    // No prototype chain to Object.prototype, as for matched params.
    this.params = params ?? (Object.create(PARAMS_PROTOTYPE) as P);
  }

  /** The request URL, parsed on first use. */
  get url(): URL {
    return this.#url ??= new URL(this.request.url);
  }

  /** The request headers. */
  get headers(): Headers {
    return this.request.headers;
  }

  /**
   * Reads a value stored under `key`: the key's default (or `undefined`)
   * when nothing was set.
   *
   * @param key A {@linkcode ContextKey}, a class or a symbol.
   * @returns The stored value.
   */
  get<K extends AnyContextKey>(key: K): ContextLookup<K> {
    const values = this.#values;
    if (values !== undefined && values.has(key)) {
      return values.get(key) as ContextLookup<K>;
    }
    return (key instanceof ContextKey
      ? key.defaultValue
      : undefined) as ContextLookup<K>;
  }

  /**
   * Stores `value` under `key` for the rest of this request.
   *
   * @param key A {@linkcode ContextKey}, a class or a symbol.
   * @param value The value; its type follows from the key.
   */
  set<K extends AnyContextKey>(key: K, value: ContextValue<K>): void {
    (this.#values ??= new Map()).set(key, value);
  }

  /**
   * Tells whether a value was set under `key` (a default does not count).
   *
   * @param key A {@linkcode ContextKey}, a class or a symbol.
   * @returns `true` when `set` was called with this key.
   */
  has(key: AnyContextKey): boolean {
    return this.#values !== undefined && this.#values.has(key);
  }
}
