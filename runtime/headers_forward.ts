/**
 * Classes that stand in for a `Headers` (the router's staged response
 * headers, Node's request headers read from `node:http`'s record) define
 * the members they make cheaper and forward every other one to a real
 * `Headers`.
 *
 * @module
 */

/**
 * Gives `prototype` each member of the runtime's `Headers.prototype` it
 * does not define itself (`get`, `forEach`, `entries`, `getSetCookie`,
 * the iterator, Bun's `toJSON`, `count` and `getAll`...), forwarding to
 * the `Headers` that `target(this)` returns, under the method's own name;
 * then chains `prototype` to `Headers.prototype`, so that `instanceof
 * Headers` holds.
 */
export function forwardHeaders<T extends object>(
  prototype: T,
  target: (self: T) => Headers,
): void {
  const own = prototype as unknown as Record<PropertyKey, unknown>;
  const native = Headers.prototype;
  for (const key of Reflect.ownKeys(native)) {
    if (key === "constructor" || Object.hasOwn(own, key)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(native, key)!;
    if (typeof descriptor.value === "function") {
      const method = descriptor.value as (...args: unknown[]) => unknown;
      Object.defineProperty(own, key, {
        ...descriptor,
        value: {
          [method.name]: function (this: T, ...args: unknown[]) {
            const headers = target(this) as unknown as Record<
              PropertyKey,
              (...args: unknown[]) => unknown
            >;
            return headers[key]!(...args);
          },
        }[method.name],
      });
    } else if (descriptor.get !== undefined) {
      Object.defineProperty(own, key, {
        ...descriptor,
        get(this: T) {
          return (target(this) as unknown as Record<PropertyKey, unknown>)[
            key
          ];
        },
        set: undefined,
      });
    }
  }
  Object.setPrototypeOf(own, native);
}
