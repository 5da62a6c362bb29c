/**
 * Templates with parts that are not ready: the parts a hole's Promise,
 * async iterable or `html.defer()` makes, and the writer that streams
 * them in document order, deferred parts last.
 *
 * @module
 */
import { escapeHtml, SafeHtml } from "./_safe.ts";
import { unrefTimer } from "../runtime/timer.ts";

/** How long a streamed document waits for its parts, by default. */
export const DEFAULT_STREAM_TIMEOUT = 30_000;

/**
 * Checks a document's `timeout`: a positive number of milliseconds
 * (`Infinity` for none).
 */
export function checkStreamTimeout(timeout: unknown, owner: string): number {
  if (typeof timeout !== "number" || !(timeout > 0)) {
    throw new TypeError(
      `${owner}: timeout must be a positive number of milliseconds (Infinity for none), got ${
        String(timeout)
      }`,
    );
  }
  return timeout;
}

/**
 * Thrown inside the tag when a hole holds a value that is not ready (a
 * Promise, an async iterable, `html.defer()`, a streaming template), and
 * by `.value` of a {@linkcode StreamingHtml}: such HTML has no string yet.
 */
export class PendingHtmlError extends TypeError {
  constructor() {
    super(
      "html: this template holds parts that are not ready (Promises, async iterables or html.defer()), so it has no string value yet: give it to createHtmlResponse() to stream it, or await its text()",
    );
  }
}

/** Options of {@linkcode HtmlTag.defer | html.defer}. */
export interface DeferOptions {
  /**
   * A name for the part, in the error placeholder
   * (`data-fk-error="comments"`) and the log line when it fails. Default
   * `deferred part`.
   */
  name?: string;
  /**
   * What to show when the promise rejects (the error is logged either
   * way): HTML or text. Default: a `<span data-fk-error="NAME"
   * role="alert">` saying the part could not be loaded.
   */
  error?: (error: unknown) => SafeHtml | string;
}

/**
 * A part of the page sent after the rest: made by
 * {@linkcode HtmlTag.defer | html.defer}.
 *
 * @example
 * ```ts
 * import { DeferredHtml, html } from "@fetchkit/toolkit/html-template";
 *
 * const part = html.defer(Promise.resolve("later"), html`<p>Loading…</p>`);
 * part instanceof DeferredHtml; // true
 * ```
 */
export class DeferredHtml {
  /** The value to render once it resolves. */
  readonly promise: Promise<unknown>;
  /** What stands in its place until then. */
  readonly fallback: SafeHtml;
  /** Its name and error rendering. */
  readonly options: DeferOptions;

  /**
   * Prefer `html.defer(promise, fallback)`.
   *
   * @param promise The value to render once it resolves.
   * @param fallback What stands in its place until then.
   * @param options A name and the error rendering.
   */
  constructor(
    promise: PromiseLike<unknown>,
    fallback: SafeHtml,
    options: DeferOptions = {},
  ) {
    this.promise = Promise.resolve(promise);
    // Rendering handles a rejection; never an unhandled one meanwhile.
    this.promise.catch(() => {});
    this.fallback = fallback;
    this.options = options;
  }
}

/** A hole whose value comes later: a promise or an async iterable. */
export class PendingPart {
  /**
   * @param source The promise or async iterable.
   * @param iterable Whether `source` is an async iterable.
   * @param quoted Whether the hole is inside a quoted attribute value.
   */
  constructor(
    readonly source: PromiseLike<unknown> | AsyncIterable<unknown>,
    readonly iterable: boolean,
    readonly quoted: boolean,
  ) {}
}

/** One part of a {@linkcode StreamingHtml}: HTML text, or a part to wait for. */
export type HtmlPart = string | PendingPart | DeferredHtml;

/** Options of {@linkcode StreamingHtml.stream}. */
export interface HtmlStreamOptions {
  /**
   * The CSP nonce for the inline scripts that swap deferred parts in
   * (`context.get(CspNonce)` with `secureHeaders()`).
   */
  nonce?: string;
  /**
   * Called with each error of a part (which renders its placeholder).
   * Default: `console.error` naming the part.
   */
  onError?: (error: unknown, name: string) => void;
  /**
   * Milliseconds the whole document may take: then every part still
   * pending renders its error placeholder (its error a `TimeoutError`)
   * and the document ends. Default 30,000 for `stream()`, none for
   * `text()`; `Infinity` for none.
   */
  timeout?: number;
}

/** The parts of a streaming template (its field is private to the class). */
let partsOf: (page: StreamingHtml) => readonly HtmlPart[];

/**
 * HTML from an `html` template with parts that are not ready yet: a
 * Promise, an async iterable or `html.defer()` in a hole, here or in a
 * nested template. It is a {@linkcode SafeHtml} (it nests in other
 * templates and goes where they go) without a string value:
 * `createHtmlResponse()` streams it, `text()` waits for all of it.
 *
 * @example
 * ```ts
 * import { html, StreamingHtml } from "@fetchkit/toolkit/html-template";

 *
 * const page = html`<p>${Promise.resolve("<later>")}</p>`;
 * page instanceof StreamingHtml; // true
 * await page.text(); // "<p>&lt;later&gt;</p>"
 * ```
 */
export class StreamingHtml extends SafeHtml {
  readonly #parts: readonly HtmlPart[];

  static {
    partsOf = (page) => page.#parts;
  }

  /**
   * Made by the `html` tag.
   *
   * @param parts The parts, in document order.
   */
  constructor(parts: HtmlPart[]) {
    super("");
    this.#parts = parts;
    // Reading the string of a page that is not ready is a mistake to
    // report, not an empty page to send; the tag catches this to nest it.
    Object.defineProperty(this, "value", { get: throwPending });
  }

  /**
   * Throws: the text is not ready. Use `text()` or `createHtmlResponse()`.
   *
   * @returns Never.
   */
  override toString(): string {
    throw new PendingHtmlError();
  }

  /**
   * The whole document once every part is ready, each deferred part in its
   * place (no script needed). A failed part renders its placeholder.
   *
   * @param options Where errors are reported.
   * @returns The HTML text.
   */
  override text(
    options: Pick<HtmlStreamOptions, "onError" | "timeout"> = {},
  ): Promise<string> {
    return renderText(this, { timeout: Infinity, ...options });
  }

  /**
   * The document as a stream of UTF-8 bytes: everything up to the first
   * part not ready at once, then each part as it resolves, in order;
   * deferred parts at the end (before `</body>`) with a script that moves
   * each into its place.
   *
   * @param options The CSP nonce for the scripts, where errors go, the
   * document's deadline.
   * @returns The byte stream.
   */
  stream(options: HtmlStreamOptions = {}): ReadableStream<Uint8Array> {
    return streamHtml(this, options);
  }
}

function throwPending(): never {
  throw new PendingHtmlError();
}

/** Whether a hole's value is one to wait for. */
export function isPending(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  return value instanceof DeferredHtml ||
    typeof (value as PromiseLike<unknown>).then === "function" ||
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] ===
      "function";
}

/** Appends `part`, joining it to a string before it. */
export function pushPart(parts: HtmlPart[], part: HtmlPart): void {
  const last = parts.length - 1;
  if (typeof part === "string") {
    if (part === "") return;
    if (last >= 0 && typeof parts[last] === "string") {
      parts[last] = (parts[last] as string) + part;
      return;
    }
  }
  parts.push(part);
}

/**
 * Collects the parts of one value in a text hole (`quoted`: in a quoted
 * attribute value, where a deferred part cannot go), by the rules of the
 * synchronous tag.
 */
export function collectParts(
  value: unknown,
  parts: HtmlPart[],
  quoted: boolean,
): void {
  if (typeof value === "string") return pushPart(parts, escapeHtml(value));
  if (value === null || value === undefined || typeof value === "boolean") {
    return;
  }
  if (value instanceof StreamingHtml) {
    for (const part of partsOf(value)) {
      if (quoted && part instanceof DeferredHtml) {
        throw new TypeError(
          "html: html.defer() cannot go in an attribute value (it is swapped in as elements); await the value there instead",
        );
      }
      pushPart(parts, part);
    }
    return;
  }
  if (value instanceof SafeHtml) return pushPart(parts, value.value);
  if (typeof value === "number" || typeof value === "bigint") {
    return pushPart(parts, String(value));
  }
  if (Array.isArray(value)) {
    for (const item of value) collectParts(item, parts, quoted);
    return;
  }
  if (value instanceof DeferredHtml) {
    if (quoted) {
      throw new TypeError(
        "html: html.defer() cannot go in an attribute value (it is swapped in as elements); put the Promise itself there",
      );
    }
    return pushPart(parts, value);
  }
  if (typeof (value as PromiseLike<unknown>).then === "function") {
    const promise = Promise.resolve(value as PromiseLike<unknown>);
    promise.catch(() => {}); // rendering reports it
    return pushPart(parts, new PendingPart(promise, false, quoted));
  }
  if (
    typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] ===
      "function"
  ) {
    return pushPart(
      parts,
      new PendingPart(value as AsyncIterable<unknown>, true, quoted),
    );
  }
  pushPart(parts, escapeHtml(String(value)));
}

// The swap: the resolved part's nodes replace what lies between its two
// markers. Checks that both markers still share a parent, so markup that
// the parser moved (a fallback that was not balanced) is left alone.
const SWAP =
  'function fkSwap(n){var d=document,s=d.getElementById("fk-d-"+n),' +
  'e=d.getElementById("fk-e-"+n),c=d.getElementById("fk-c-"+n);' +
  "if(!s||!e||!c||s.parentNode!==e.parentNode)return;var p=s.parentNode;" +
  "while(s.nextSibling&&s.nextSibling!==e)p.removeChild(s.nextSibling);" +
  "while(c.firstChild)p.insertBefore(c.firstChild,e);" +
  "p.removeChild(s);p.removeChild(e);c.parentNode.removeChild(c)}";

/** State of one rendering. */
interface Writer {
  /** Text not yet handed out. */
  buffer: string;
  /** Deferred parts met so far: each settles to its HTML, never rejects. */
  deferred: Promise<[number, string]>[];
  /** Count of deferred parts, for their ids. */
  count: number;
  /** Deferred parts render in place (text()), not at the end. */
  inline: boolean;
  /** The stream was cancelled: stop. */
  cancelled: boolean;
  onError: (error: unknown, name: string) => void;
  /** Settles when the document's time is up (never without a deadline). */
  expired: Promise<void>;
  /** The deadline in ms, for messages. */
  timeout: number;
  /** Set once the time is up. */
  late: boolean;
}

/**
 * `value`, or a `TimeoutError` once the document's time is up: a part that
 * never settles cannot keep the document open.
 */
function settle<T>(
  value: PromiseLike<T>,
  writer: Writer,
  name: string,
): Promise<T> {
  if (writer.timeout === Infinity) return Promise.resolve(value);
  return Promise.race([
    value,
    writer.expired.then((): never => {
      throw new DOMException(
        `html: the ${name} did not settle within ${writer.timeout} ms, the document's timeout`,
        "TimeoutError",
      );
    }),
  ]);
}

function logError(error: unknown, name: string): void {
  console.error(`html: ${name} failed while the page was rendered:`, error);
}

/** The placeholder of a failed part, after reporting the error. */
function failed(
  writer: Writer,
  error: unknown,
  name: string,
  render?: (error: unknown) => SafeHtml | string,
  quoted = false,
): string {
  try {
    writer.onError(error, name);
  } catch {
    // A failing logger must not break the page.
  }
  if (render !== undefined) {
    try {
      const shown = render(error);
      return shown instanceof SafeHtml
        ? shown.value
        : escapeHtml(String(shown));
    } catch (again) {
      try {
        writer.onError(again, name);
      } catch {
        // as above
      }
    }
  }
  const safe = escapeHtml(name);
  // In an attribute value, text only: markup there would end the value.
  if (quoted) return `The ${safe} could not be loaded.`;
  return `<span data-fk-error="${safe}" role="alert">The ${safe} could not be loaded.</span>`;
}

/** The parts of one resolved value. */
function partsOfValue(value: unknown, quoted: boolean): HtmlPart[] {
  const parts: HtmlPart[] = [];
  collectParts(value, parts, quoted);
  return parts;
}

/** Hands out the buffer, if it holds anything. */
function* flush(writer: Writer): Generator<string> {
  if (writer.buffer !== "") {
    const text = writer.buffer;
    writer.buffer = "";
    yield text;
  }
}

/** Writes parts in document order, waiting for each pending one. */
async function* write(
  parts: readonly HtmlPart[],
  writer: Writer,
): AsyncGenerator<string> {
  for (const part of parts) {
    if (writer.cancelled) return;
    if (typeof part === "string") {
      writer.buffer += part;
    } else if (part instanceof DeferredHtml) {
      const name = part.options.name ?? "deferred part";
      if (writer.inline) {
        yield* flush(writer);
        yield* settleInline(part.promise, writer, name, part.options.error);
        continue;
      }
      const id = ++writer.count;
      writer.buffer +=
        `<template id="fk-d-${id}"></template>${part.fallback.value}<template id="fk-e-${id}"></template>`;
      writer.deferred.push(
        renderDeferred(part, name, writer).then((html) => [id, html]),
      );
    } else if (!part.iterable) {
      yield* flush(writer);
      yield* settleInline(
        part.source as PromiseLike<unknown>,
        writer,
        "part",
        undefined,
        part.quoted,
      );
    } else {
      yield* flush(writer);
      const iterator = (part.source as AsyncIterable<unknown>)
        [Symbol.asyncIterator]();
      // Left early (the stream was cancelled): close the iterator, so its
      // `finally` runs and it stops producing.
      let ended = false;
      try {
        while (true) {
          const step = await settle(
            iterator.next(),
            writer,
            "streamed part",
          );
          if (step.done) {
            ended = true;
            break;
          }
          if (writer.cancelled) return;
          yield* write(partsOfValue(step.value, part.quoted), writer);
          // Each item as it comes.
          yield* flush(writer);
        }
      } catch (error) {
        ended = true;
        writer.buffer += failed(
          writer,
          error,
          "streamed part",
          undefined,
          part.quoted,
        );
      } finally {
        if (writer.late) {
          // Stuck in an await: its return() would wait as long.
          Promise.resolve(iterator.return?.()).catch(() => {});
        } else if (!ended) await iterator.return?.();
      }
    }
  }
}

/** Waits for a promise and writes its value where it stands. */
async function* settleInline(
  promise: PromiseLike<unknown>,
  writer: Writer,
  name: string,
  render?: (error: unknown) => SafeHtml | string,
  quoted = false,
): AsyncGenerator<string> {
  let parts: HtmlPart[];
  try {
    // A value the tag refuses where it lands (html.defer() resolved into an
    // attribute value) fails this part, not the page.
    parts = partsOfValue(await settle(promise, writer, name), quoted);
  } catch (error) {
    writer.buffer += failed(writer, error, name, render, quoted);
    return;
  }
  if (writer.cancelled) return;
  yield* write(parts, writer);
}

/** A deferred part's HTML, all of it (nested parts waited for in place). */
async function renderDeferred(
  part: DeferredHtml,
  name: string,
  outer: Writer,
): Promise<string> {
  const writer: Writer = {
    buffer: "",
    deferred: [],
    count: 0,
    inline: true,
    cancelled: false,
    onError: outer.onError,
    expired: outer.expired,
    timeout: outer.timeout,
    late: false,
  };
  outer.expired.then(() => writer.late = true);
  let text = "";
  for await (
    const chunk of settleInline(part.promise, writer, name, part.options.error)
  ) text += chunk;
  return text + writer.buffer;
}

// Case-insensitive, for `</BODY>` too.
const BODY_END = /<\/body\s*>/gi;

/** Index of the last `</body>` in `text`, or -1. */
function lastBodyEnd(text: string): number {
  let at = -1;
  BODY_END.lastIndex = 0;
  for (let match; (match = BODY_END.exec(text)) !== null;) at = match.index;
  return at;
}

/** The whole document: in-order parts, then the deferred ones. */
async function* writeDocument(
  page: StreamingHtml,
  writer: Writer,
  nonce: string | undefined,
): AsyncGenerator<string> {
  yield* write(partsOf(page), writer);
  if (writer.deferred.length === 0 || writer.cancelled) {
    yield* flush(writer);
    return;
  }
  // Deferred parts go before `</body>` when the page closes it.
  const at = lastBodyEnd(writer.buffer);
  const tail = at === -1 ? "" : writer.buffer.slice(at);
  if (at !== -1) writer.buffer = writer.buffer.slice(0, at);
  yield* flush(writer);
  const open = nonce === undefined
    ? "<script>"
    : `<script nonce="${escapeHtml(nonce)}">`;
  const pending = new Map(writer.deferred.map((promise, index) => [
    index,
    promise.then(([id, html]) => [index, id, html] as const),
  ]));
  let first = true;
  while (pending.size > 0) {
    const [index, id, html] = await Promise.race(pending.values());
    pending.delete(index);
    if (writer.cancelled) return;
    yield `<div id="fk-c-${id}" data-fk-deferred>${html}</div>${open}${
      first ? SWAP + ";" : ""
    }fkSwap(${id})</script>`;
    first = false;
  }
  if (tail !== "") yield tail;
}

function newWriter(
  options: HtmlStreamOptions,
  inline: boolean,
): Writer & { stop(): void } {
  const timeout = options.timeout === undefined
    ? DEFAULT_STREAM_TIMEOUT
    : checkStreamTimeout(options.timeout, "html");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = timeout === Infinity
    ? new Promise<void>(() => {})
    : new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeout);
      unrefTimer(timer);
    });
  const writer = {
    buffer: "",
    deferred: [],
    count: 0,
    inline,
    cancelled: false,
    onError: options.onError ?? logError,
    expired,
    timeout,
    late: false,
    stop: () => clearTimeout(timer),
  };
  expired.then(() => writer.late = true);
  return writer;
}

/** `StreamingHtml.text()`: everything, deferred parts in place. */
export async function renderText(
  page: StreamingHtml,
  options: HtmlStreamOptions,
): Promise<string> {
  const writer = newWriter(options, true);
  try {
    let text = "";
    for await (const chunk of write(partsOf(page), writer)) text += chunk;
    return text + writer.buffer;
  } finally {
    writer.stop();
  }
}

/** `StreamingHtml.stream()`: UTF-8 chunks as the parts resolve. */
export function streamHtml(
  page: StreamingHtml,
  options: HtmlStreamOptions,
): ReadableStream<Uint8Array> {
  const writer = newWriter(options, false);
  const chunks = writeDocument(page, writer, options.nonce);
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const step = await chunks.next();
      if (step.done) {
        writer.stop();
        controller.close();
      } else controller.enqueue(encoder.encode(step.value));
    },
    cancel() {
      writer.stop();
      writer.cancelled = true;
      // Ends the generator once its current wait is over.
      void chunks.return(undefined);
    },
  });
}
