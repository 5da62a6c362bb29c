/**
 * Number options of the middleware built on stores (`cache()`,
 * `idempotency()`), checked alike when the middleware is made.
 *
 * @module
 */

/**
 * `value` when it is a finite number of at least `min`.
 *
 * @param owner The function whose option it is, for the error: `cache()`.
 * @param name The option's name.
 * @param value The value given (or its default).
 * @param min The smallest value allowed.
 * @returns `value`.
 * @throws {RangeError} Naming the option, the bound and the value otherwise.
 */
export function atLeast(
  owner: string,
  name: string,
  value: number,
  min: number,
): number {
  if (typeof value !== "number" || !(value >= min) || !Number.isFinite(value)) {
    throw new RangeError(
      `${owner}: ${name} must be a finite number >= ${min}, got ${value}`,
    );
  }
  return value;
}
