/**
 * The process's memory, on Deno (`Deno.memoryUsage()`), Node and Bun
 * (`process.memoryUsage()`); `undefined` elsewhere (workerd, browsers).
 *
 * @module
 */

/** Bytes: resident set, and the JavaScript heap's size and use. */
export interface MemoryUsage {
  rss: number;
  heapTotal: number;
  heapUsed: number;
}

type Reader = () => MemoryUsage;

/** The process's memory now, or `undefined` where it cannot be read. */
export function memoryUsage(): MemoryUsage | undefined {
  const deno = (globalThis as { Deno?: { memoryUsage?: Reader } }).Deno;
  if (typeof deno?.memoryUsage === "function") return deno.memoryUsage();
  const process = (globalThis as { process?: { memoryUsage?: Reader } })
    .process;
  if (typeof process?.memoryUsage === "function") return process.memoryUsage();
  return undefined;
}

/** Lets a timer not keep the process alive (Deno, Node and Bun). */
export function unrefTimer(timer: unknown): void {
  const deno = (globalThis as { Deno?: { unrefTimer?(id: number): void } })
    .Deno;
  if (typeof timer === "number" && typeof deno?.unrefTimer === "function") {
    deno.unrefTimer(timer);
    return;
  }
  (timer as { unref?(): void } | undefined)?.unref?.();
}
