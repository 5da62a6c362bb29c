/**
 * A pull-based streaming `multipart/form-data` reader.
 *
 * The reader holds at most one input chunk plus a few bytes of a delimiter
 * cut by a chunk edge. Part bodies come out as views into the input chunks,
 * so file bytes are never copied or decoded here; the consumer decides what
 * to keep. Because the reader only pulls input when its consumer asks for
 * more, a slow consumer (a disk write) slows the upload instead of filling
 * memory.
 *
 * @module
 */

import { MaxHeaderSizeExceededError } from "./errors.ts";
import { FormDataParseError } from "./errors.ts";
import { parsePartHead, type PartHead } from "./_headers.ts";
import {
  type BytePattern,
  createPattern,
  indexOfPattern,
  partialMatchStart,
} from "./_search.ts";

const EMPTY = new Uint8Array(0);
const CRLF = new Uint8Array([13, 10]);
const HEADER_END = createPattern(new Uint8Array([13, 10, 13, 10]));
const DASH = 45;
const SPACE = 32;
const TAB = 9;
const CR = 13;
const LF = 10;

/** RFC 2046 caps boundaries at 70 characters; allow some slack. */
const MAX_BOUNDARY_LENGTH = 200;

/** Reads parts from a multipart body, one after the other. */
export class MultipartReader {
  #pull: () => Promise<Uint8Array | null>;
  #recycle: (chunk: Uint8Array) => void;
  /** A piece of the current buffer went to a consumer that may keep it. */
  #retained = false;
  /** `\r\n--boundary`: every delimiter, the first one included (see below). */
  #delimiter: BytePattern;
  #maxHeaderSize: number;
  #buffer: Uint8Array;
  #pos = 0;
  /** The current body (or the preamble) reached its delimiter. */
  #bodyEnded = false;
  #finished = false;
  #parts = 0;

  /**
   * @param pull Gives the next input chunk, or `null` at the end.
   * @param boundary The `boundary` parameter of the content type.
   * @param maxHeaderSize Largest header block of one part, in bytes.
   * @param recycle Takes back an input chunk that nothing refers to.
   */
  constructor(
    pull: () => Promise<Uint8Array | null>,
    boundary: string,
    maxHeaderSize: number,
    recycle: (chunk: Uint8Array) => void = () => {},
  ) {
    if (boundary.length === 0 || boundary.length > MAX_BOUNDARY_LENGTH) {
      throw new FormDataParseError(
        `The multipart boundary must be 1 to ${MAX_BOUNDARY_LENGTH} characters long`,
      );
    }
    const delimiter = new Uint8Array(boundary.length + 4);
    delimiter.set([CR, LF, DASH, DASH]);
    for (let i = 0; i < boundary.length; i++) {
      const code = boundary.charCodeAt(i);
      if (code > 126 || code < 32) {
        throw new FormDataParseError(
          "The multipart boundary has characters outside printable ASCII",
        );
      }
      delimiter[i + 4] = code;
    }
    this.#pull = pull;
    this.#recycle = recycle;
    this.#delimiter = createPattern(delimiter);
    this.#maxHeaderSize = maxHeaderSize;
    // The body is read as if it began with CRLF: the first delimiter then
    // looks like every other one, and the preamble before it is simply a
    // body that nobody reads.
    this.#buffer = CRLF;
  }

  /**
   * Moves to the next part, skipping what is left of the current one.
   * Resolves to its headers, or `null` after the final boundary.
   */
  async next(): Promise<PartHead | null> {
    if (this.#finished) return null;
    // Skipped bytes go nowhere, so their chunks can be recycled.
    while (!this.#bodyEnded) await this.read(true);
    // Right after a delimiter: "--" closes the body; otherwise optional
    // white space, then CRLF and the headers.
    await this.#fill(2);
    if (
      this.#buffer[this.#pos] === DASH && this.#buffer[this.#pos + 1] === DASH
    ) {
      this.#finished = true;
      return null;
    }
    let skip = 0;
    for (;;) {
      const buffer = this.#buffer;
      const start = this.#pos;
      while (
        start + skip < buffer.length &&
        (buffer[start + skip] === SPACE || buffer[start + skip] === TAB)
      ) skip++;
      if (start + skip + 1 < buffer.length) break;
      if (skip > this.#maxHeaderSize) this.#headerTooLarge();
      await this.#fill(skip + 2);
    }
    const at = this.#pos + skip;
    if (this.#buffer[at] !== CR || this.#buffer[at + 1] !== LF) {
      throw new FormDataParseError(
        "A multipart boundary is followed by unexpected bytes",
      );
    }
    this.#pos = at;
    this.#parts++;
    // The header block ends at the first CRLFCRLF, counting the CRLF that
    // ends the boundary line (a part without headers has just that).
    let end: number;
    for (;;) {
      end = indexOfPattern(this.#buffer, HEADER_END, this.#pos);
      if (end !== -1) break;
      // Unfound in max + 6 bytes (CRLF, max bytes, CRLFCRLF): too long.
      if (this.#buffer.length - this.#pos >= this.#maxHeaderSize + 6) {
        this.#headerTooLarge();
      }
      await this.#fill(this.#buffer.length - this.#pos + 1);
    }
    if (end - this.#pos - 2 > this.#maxHeaderSize) this.#headerTooLarge();
    const raw = end === this.#pos
      ? EMPTY
      : this.#buffer.subarray(this.#pos + 2, end);
    this.#pos = end + 4;
    this.#bodyEnded = false;
    const head = parsePartHead(raw);
    if (typeof head === "string") {
      throw new FormDataParseError(`Bad multipart headers: ${head}`);
    }
    return head;
  }

  /**
   * The next piece of the current part's body, or `null` at its end. The
   * piece is a view into an input chunk. With `borrow`, the caller promises
   * to be done with the piece before its next call, so that the chunk can
   * be recycled; otherwise the piece stays valid for good.
   */
  async read(borrow = false): Promise<Uint8Array | null> {
    if (this.#bodyEnded) return null;
    const delimiter = this.#delimiter;
    for (;;) {
      const buffer = this.#buffer;
      const pos = this.#pos;
      if (pos < buffer.length) {
        const found = indexOfPattern(buffer, delimiter, pos);
        if (found !== -1) {
          this.#pos = found + delimiter.bytes.length;
          this.#bodyEnded = true;
          if (found === pos) return null;
          if (!borrow) this.#retained = true;
          return buffer.subarray(pos, found);
        }
        // Keep back only bytes that may begin a delimiter cut by the
        // chunk's end; everything before them is body.
        const keep = partialMatchStart(buffer, delimiter, pos);
        if (keep > pos) {
          this.#pos = keep;
          if (!borrow) this.#retained = true;
          return buffer.subarray(pos, keep);
        }
      }
      await this.#more(this.#parts === 0 ? "no boundary" : "truncated");
    }
  }

  /** Pulls until at least `count` bytes are buffered after `#pos`. */
  async #fill(count: number): Promise<void> {
    while (this.#buffer.length - this.#pos < count) {
      await this.#more("truncated");
    }
  }

  /** Appends the next input chunk to what is left of the buffer. */
  async #more(whenMissing: "no boundary" | "truncated"): Promise<void> {
    let chunk = await this.#pull();
    while (chunk !== null && chunk.length === 0) chunk = await this.#pull();
    if (chunk === null) {
      throw new FormDataParseError(
        whenMissing === "no boundary"
          ? "The multipart body has no boundary line"
          : "The multipart body ended before its final boundary",
      );
    }
    const old = this.#buffer;
    const rest = old.length - this.#pos;
    if (rest === 0) {
      this.#buffer = chunk;
    } else {
      // Bytes are carried over only when a chunk ends inside headers or in
      // what may be the start of a delimiter: rare on file data, so the
      // copy of the next chunk rarely happens.
      const joined = new Uint8Array(rest + chunk.length);
      joined.set(this.#buffer.subarray(this.#pos));
      joined.set(chunk, rest);
      this.#buffer = joined;
      this.#recycle(chunk);
    }
    this.#pos = 0;
    // Its last bytes, if any, were copied above; header bytes were decoded.
    if (!this.#retained) this.#recycle(old);
    this.#retained = false;
  }

  #headerTooLarge(): never {
    throw new MaxHeaderSizeExceededError(this.#maxHeaderSize, this.#parts);
  }
}
