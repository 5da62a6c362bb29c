/** Statistics shared by the benchmark scripts. @module */

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/**
 * The `q` quantile of `values` (0.25 for the lower quartile), interpolating
 * between neighbours as spreadsheets do.
 */
export function quantile(values: readonly number[], q: number): number {
  const sorted = values.toSorted((a, b) => a - b);
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  const high = Math.min(low + 1, sorted.length - 1);
  return sorted[low] + (sorted[high] - sorted[low]) * (at - low);
}
