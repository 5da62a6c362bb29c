/**
 * Limit defaults and their validation, shared by the parsers.
 *
 * @module
 */

import type { FileUploadHandler } from "./file_upload.ts";

/** Resolved limits, every one a number (`Infinity` for none). */
export interface Limits {
  maxFileSize: number;
  maxFiles: number;
  maxFieldSize: number;
  maxFields: number;
  maxHeaderSize: number;
  maxTotalSize: number;
  idleTimeout: number;
  bodyTimeout: number;
  uploadHandler: FileUploadHandler | undefined;
}

const KiB = 1024;
const MiB = 1024 * KiB;

/** The documented defaults (see `ParseFormDataOptions`). */
export const DEFAULTS = {
  maxFileSize: 10 * MiB,
  maxFiles: 20,
  maxFieldSize: 1 * MiB,
  maxFields: 1000,
  maxHeaderSize: 8 * KiB,
  maxTotalSize: 64 * MiB,
  idleTimeout: 30_000,
  bodyTimeout: 300_000,
} as const;

type LimitOptions = { [K in keyof typeof DEFAULTS]?: number } & {
  uploadHandler?: FileUploadHandler;
};

/** Fills in defaults; throws `RangeError` for a negative or NaN limit. */
export function resolveLimits(options: LimitOptions): Limits {
  const limits: Limits = { ...DEFAULTS, uploadHandler: options.uploadHandler };
  for (const key of Object.keys(DEFAULTS) as (keyof typeof DEFAULTS)[]) {
    const value = options[key];
    if (value === undefined) continue;
    if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
      throw new RangeError(
        `formData option ${key} must be a number >= 0, got ${String(value)}`,
      );
    }
    limits[key] = value;
  }
  return limits;
}

/**
 * A timeout as a timer delay: 0 (no timer) for 0, `Infinity` or anything
 * beyond what `setTimeout` can wait (2^31 - 1 ms).
 */
export function timerDelay(ms: number): number {
  return ms > 0 && ms < 2 ** 31 ? ms : 0;
}
