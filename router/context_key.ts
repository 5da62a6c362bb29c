/**
 * Typed keys for values that middleware put on the request context.
 *
 * @module
 */

/**
 * A typed key for values stored in a request context.
 *
 * Create one with {@linkcode createContextKey}; `context.get(key)` then
 * returns the type the key was created with.
 *
 * @example Declare and use a typed key
 * ```ts
 * import { createContextKey } from "@fetchkit/toolkit/fetch-router";
 *
 * const RequestId = createContextKey<string>("none");
 * RequestId.defaultValue; // "none"
 * ```
 */
export class ContextKey<T> {
  /** A label for debugging; it plays no part in lookups. */
  readonly name: string;
  /** What `context.get(key)` returns when nothing was set. */
  readonly defaultValue: T;
  /** Phantom field that carries the value type; never set at run time. */
  declare readonly valueType?: T;

  /**
   * Prefer {@linkcode createContextKey}.
   *
   * @param defaultValue Returned by `get` when nothing was set.
   * @param name A label for debugging.
   */
  constructor(defaultValue: T, name = "ContextKey") {
    this.defaultValue = defaultValue;
    this.name = name;
  }
}

/**
 * Creates a typed context key. Each call returns a new, unique key.
 *
 * @example A key without a default reads as `T | undefined`
 * ```ts
 * import { createContextKey } from "@fetchkit/toolkit/fetch-router";
 *
 * interface User { id: number; name: string }
 * const CurrentUser = createContextKey<User>();
 * ```
 *
 * @example A key with a default reads as `T`
 * ```ts
 * import { createContextKey } from "@fetchkit/toolkit/fetch-router";
 *
 * const Locale = createContextKey("en");
 * ```
 *
 * @returns A new key.
 */
export function createContextKey<T>(): ContextKey<T | undefined>;
/**
 * Creates a typed context key with a default value.
 *
 * @example
 * ```ts
 * import { createContextKey } from "@fetchkit/toolkit/fetch-router";
 *
 * const Locale = createContextKey("en", "Locale");
 * ```
 *
 * @param defaultValue What `get` returns when nothing was set.
 * @param name A label for debugging.
 * @returns A new key.
 */
export function createContextKey<T>(
  defaultValue: T,
  name?: string,
): ContextKey<T>;
export function createContextKey<T>(
  defaultValue?: T,
  name?: string,
): ContextKey<T | undefined> {
  return new ContextKey<T | undefined>(defaultValue, name);
}

/**
 * Anything usable as a context key: a {@linkcode ContextKey}, a class such
 * as `FormData` (the value is an instance of it), or a `symbol`.
 */
export type AnyContextKey =
  | ContextKey<unknown>
  | symbol
  | (abstract new (...args: never[]) => unknown);

/**
 * The type of value stored under a key: the key's type for a
 * {@linkcode ContextKey}, an instance for a class, and `unknown` for a symbol.
 */
export type ContextValue<K> = K extends ContextKey<infer T> ? T
  : K extends abstract new (...args: never[]) => infer I ? I
  : unknown;

/**
 * What `context.get(key)` returns: the key's type for a
 * {@linkcode ContextKey} (it includes `undefined` for a key made without a
 * default), an instance for a class (`get` throws when nothing was set),
 * and `unknown` for a symbol.
 */
export type ContextLookup<K> = ContextValue<K>;

/** Middleware of this package that fills a class key, by class. */
const PROVIDERS = new Map<unknown, string>([
  [
    FormData,
    "formData() middleware from @fetchkit/toolkit/form-data-middleware",
  ],
]);

/** The error `get` throws for a class key with nothing set (internal). */
export function missingValue(key: { readonly name: string }): TypeError {
  const name = key.name || "anonymous class";
  const provider = PROVIDERS.get(key);
  return new TypeError(
    provider !== undefined
      ? `No ${name} in the request context; add ${provider} to the router or route`
      : `No ${name} in the request context; add the middleware that sets it (context.set(${name}, value)) before this handler, or test with context.has(${name}) first`,
  );
}
