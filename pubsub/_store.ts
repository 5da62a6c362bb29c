// The store seam's timeout and error mapping, used by every pub/sub store
// call. Until store/ lands on main this is a stand-in with its signatures.

/** A store is down, timed out, full, or stayed locked (503 + Retry-After). */
export class StoreUnavailableError extends Error {
  /** HTTP status the router answers with. */
  readonly status = 503;
  /** Seconds for `Retry-After`. */
  readonly retryAfterSeconds: number;
  constructor(
    store: string,
    message: string,
    options: { cause?: unknown; retryAfterSeconds?: number } = {},
  ) {
    super(`${store}: ${message}`, { cause: options.cause });
    this.name = "StoreUnavailableError";
    this.retryAfterSeconds = options.retryAfterSeconds ?? 5;
  }
}

const OUTAGE =
  /ECONNREFUSED|ECONNRESET|connection (refused|reset|closed)|client is closed|socket closed|database or disk is full|database is locked|database is closed|timed? ?out/i;

/** Whether `error` says the store is unreachable. */
export function isStoreOutage(error: unknown): boolean {
  return error instanceof Error &&
    (error instanceof StoreUnavailableError || OUTAGE.test(error.message) ||
      OUTAGE.test(error.name));
}

/** Wraps an outage in {@linkcode StoreUnavailableError}; anything else unchanged. */
export function toStoreError(error: unknown, store: string): unknown {
  if (error instanceof StoreUnavailableError || !isStoreOutage(error)) {
    return error;
  }
  return new StoreUnavailableError(store, (error as Error).message, {
    cause: error,
  });
}

/** Rejects with {@linkcode StoreUnavailableError} when `operation` takes longer than `ms`. */
export function withTimeout<T>(
  operation: () => Promise<T>,
  ms: number,
  options: { store: string; what: string },
): Promise<T> {
  if (ms === Infinity) return operation();
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() =>
      reject(
        new StoreUnavailableError(
          options.store,
          `${options.store} did not answer within ${ms} ms (${options.what})`,
        ),
      ), ms);
    operation().then(resolve, reject).finally(() => clearTimeout(timer));
  });
}
