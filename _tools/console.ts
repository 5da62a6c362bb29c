// Test helper: collects console.error output while a test provokes errors
// on purpose (the toolkit logs store and handler failures there).

/** Silences console.error until disposed; `errors` holds what was logged. */
export function quietErrors(): { errors: unknown[]; [Symbol.dispose](): void } {
  const errors: unknown[] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => errors.push(args);
  return {
    errors,
    [Symbol.dispose]: () => {
      console.error = original;
    },
  };
}
