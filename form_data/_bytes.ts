/**
 * Collecting the bytes of one text field, urlencoded body or in-memory
 * upload, with memory bounded by the byte count rather than by how many
 * pieces the bytes came in.
 *
 * @module
 */

/** Pieces shorter than this are copied into a shared block. */
export const SMALL_PIECE = 4 * 1024;
/** Size of the blocks that small pieces are packed into. */
const BLOCK_SIZE = 16 * 1024;

/**
 * Gathers pieces in order. The first piece, and any piece of at least
 * {@linkcode SMALL_PIECE} bytes, is kept as it is (a view, no copy); later
 * small pieces are copied into 16 KiB blocks. A client that sends a field
 * in 1-byte packets thus costs about one byte per byte instead of one
 * array per packet, and the common case (a field in one piece) copies
 * nothing.
 */
export class ByteCollector {
  /** Bytes pushed so far. */
  size = 0;
  #pieces: Uint8Array[] = [];
  #block: Uint8Array | undefined;
  #used = 0;

  /** Adds `piece`, which must stay unchanged until the bytes are taken. */
  push(piece: Uint8Array): void {
    const length = piece.length;
    if (length === 0) return;
    if (this.size === 0 || length >= SMALL_PIECE) {
      this.#flush();
      this.#pieces.push(piece);
      this.size += length;
      return;
    }
    this.size += length;
    let offset = 0;
    while (offset < length) {
      this.#block ??= new Uint8Array(BLOCK_SIZE);
      const count = Math.min(length - offset, BLOCK_SIZE - this.#used);
      this.#block.set(piece.subarray(offset, offset + count), this.#used);
      this.#used += count;
      offset += count;
      if (this.#used === BLOCK_SIZE) {
        // Full: keep it whole, start another.
        this.#pieces.push(this.#block);
        this.#block = undefined;
        this.#used = 0;
      }
    }
  }

  /** How many arrays hold the bytes (for tests). */
  get arrays(): number {
    return this.#pieces.length + (this.#used > 0 ? 1 : 0);
  }

  /**
   * All the bytes as one array: the piece itself when there was just one
   * (a copy of it with `copy`), a new array otherwise.
   */
  bytes(copy = false): Uint8Array<ArrayBuffer> {
    if (this.#used > 0) {
      this.#pieces.push(this.#block!.subarray(0, this.#used));
      this.#block = undefined;
      this.#used = 0;
    }
    const pieces = this.#pieces;
    if (pieces.length === 0) return new Uint8Array(0);
    if (pieces.length === 1) {
      return (copy ? pieces[0].slice() : pieces[0]) as Uint8Array<ArrayBuffer>;
    }
    const joined = new Uint8Array(this.size);
    let offset = 0;
    for (const piece of pieces) {
      joined.set(piece, offset);
      offset += piece.length;
    }
    // Fresh, so never copied; a later call sees it as the one piece.
    this.#pieces = [joined];
    return joined;
  }

  /**
   * Before a piece that is kept as it is: the partly filled block is cut
   * to its bytes (copied, so the block can be filled again) to keep order.
   */
  #flush(): void {
    if (this.#used === 0) return;
    this.#pieces.push(this.#block!.slice(0, this.#used));
    this.#used = 0;
  }
}
