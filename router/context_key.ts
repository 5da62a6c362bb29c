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
 * What `context.get(key)` returns: like {@linkcode ContextValue}, plus
 * `undefined` for a class or symbol key (they have no default).
 */
export type ContextLookup<K> = K extends ContextKey<infer T> ? T
  : ContextValue<K> | undefined;
