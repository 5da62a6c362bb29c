/**
 * Retrying a store call that lost a race with another server, or found the
 * database locked: jittered exponential backoff inside a time budget, so
 * contending servers spread out instead of colliding in lockstep, and a
 * request never waits longer than the budget. Shared by every store of the
 * package (sessions, rate limits, caches, pub/sub); not part of its API.
 *
 * @module
 */

import { StoreUnavailableError } from "./errors.ts";

/** How long one save may keep retrying, in milliseconds. */
export const RETRY_BUDGET_MS = 2000;

/** First backoff cap; it doubles per attempt up to {@linkcode MAX_DELAY_MS}. */
const BASE_DELAY_MS = 2;
const MAX_DELAY_MS = 100;

/**
 * The pause before retry number `retry` (1 for the first): a random time
 * below a cap that doubles each time ("full jitter").
 */
export function backoffDelay(retry: number): number {
  const cap = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (retry - 1));
  return Math.random() * cap;
}

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * A time budget. Its clock starts at the first retry, so an operation that
 * needs none never reads the clock (`performance.now()` costs about as much
 * as the rest of a memory-storage save).
 */
export interface Budget {
  /** Milliseconds the retries may take in all. */
  ms: number;
  /** `performance.now()` at the first retry. */
  start?: number;
}

/** A budget of `ms` milliseconds, its clock not started yet. */
export function budgetOf(ms: number = RETRY_BUDGET_MS): Budget {
  return { ms };
}

/**
 * Sleeps before retry number `retry`, or returns `false` without sleeping
 * when the pause would overrun `budget`.
 */
export async function backoff(retry: number, budget: Budget): Promise<boolean> {
  const delay = backoffDelay(retry);
  if (elapsed(budget) + delay > budget.ms) return false;
  await sleep(delay);
  return true;
}

/** Milliseconds spent since the budget's first retry, rounded. */
export function elapsed(budget: Budget): number {
  const now = performance.now();
  return Math.round(now - (budget.start ??= now));
}

/**
 * Runs a KV call again while SQLite reports the database locked: processes
 * sharing one local KV file get that error under concurrent writes, instead
 * of waiting their turn. Retries with jittered backoff until `budget` is
 * spent, then throws, naming the attempts and the budget.
 */
export function whileLocked<T>(
  call: () => Promise<T>,
  budget?: Budget,
): Promise<T> {
  // The first attempt without an async frame: most calls are not locked
  // (a cache hit's read comes through here).
  let first: Promise<T>;
  try {
    first = call();
  } catch (error) {
    first = Promise.reject(error);
  }
  return first.catch((error) => retryLocked(call, budget ?? budgetOf(), error));
}

function isLocked(error: unknown): boolean {
  return error instanceof Error &&
    error.message.includes("database is locked");
}

async function retryLocked<T>(
  call: () => Promise<T>,
  budget: Budget,
  error: unknown,
): Promise<T> {
  for (let attempt = 1;; attempt++) {
    if (!isLocked(error)) throw error;
    if (!await backoff(attempt, budget)) {
      throw new StoreUnavailableError(
        "Deno KV",
        `Deno KV stayed locked by another process: ${attempt} attempts ` +
          `in ${elapsed(budget)} ms (retry budget ${budget.ms} ms)`,
        { cause: error },
      );
    }
    try {
      return await call();
    } catch (next) {
      error = next;
    }
  }
}
