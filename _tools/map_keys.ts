// Test helper: which strings reach a Map, without timing anything.

/**
 * Runs `action` with the keyed methods of `Map` and `Set` watched, and gives
 * the length of the longest string key any Map or Set was asked about. V8 hashes a
 * string longer than 16,383 characters by its length alone, so code that
 * hashes client-chosen strings must never ask with a long one; this shows
 * whether it does, on any runtime. Object property lookups are not seen:
 * check those by what the object holds afterwards.
 */
export async function longestMapKey(
  action: () => unknown | Promise<unknown>,
): Promise<number> {
  type Method = (this: unknown, ...args: unknown[]) => unknown;
  const watched: [Record<string, Method>, string][] = [];
  for (const name of ["get", "has", "set", "delete"]) {
    watched.push([Map.prototype as unknown as Record<string, Method>, name]);
  }
  for (const name of ["has", "add", "delete"]) {
    watched.push([Set.prototype as unknown as Record<string, Method>, name]);
  }
  const originals = watched.map(([prototype, name]) => prototype[name]);
  let longest = 0;
  watched.forEach(([prototype, name], i) => {
    const original = originals[i];
    prototype[name] = function (this: unknown, ...args) {
      const key = args[0];
      if (typeof key === "string" && key.length > longest) longest = key.length;
      return original.apply(this, args);
    };
  });
  try {
    await action();
  } finally {
    watched.forEach(([prototype, name], i) => prototype[name] = originals[i]);
  }
  return longest;
}
