// Test helper: which strings reach a Map, without timing anything.

/**
 * Runs `action` with `Map.prototype.get`, `has` and `set` watched, and gives
 * the length of the longest string key any Map was asked about. V8 hashes a
 * string longer than 16,383 characters by its length alone, so code that
 * hashes client-chosen strings must never ask with a long one; this shows
 * whether it does, on any runtime. Object property lookups are not seen:
 * check those by what the object holds afterwards.
 */
export async function longestMapKey(
  action: () => unknown | Promise<unknown>,
): Promise<number> {
  const prototype = Map.prototype as unknown as Record<
    string,
    (this: Map<unknown, unknown>, ...args: unknown[]) => unknown
  >;
  const names = ["get", "has", "set"];
  const originals = names.map((name) => prototype[name]);
  let longest = 0;
  names.forEach((name, i) => {
    const original = originals[i];
    prototype[name] = function (this: Map<unknown, unknown>, ...args) {
      const key = args[0];
      if (typeof key === "string" && key.length > longest) longest = key.length;
      return original.apply(this, args);
    };
  });
  try {
    await action();
  } finally {
    names.forEach((name, i) => prototype[name] = originals[i]);
  }
  return longest;
}
