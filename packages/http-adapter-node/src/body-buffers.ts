import { Buffer } from "node:buffer";

/** The pieces of a body in memory: strings and bytes whose UTF-8, in order, is the body. */
export type BodyPieces = readonly (string | Uint8Array)[];

/** No buffer kept for reuse is smaller: small bodies share one size. */
const SMALLEST = 16 * 1024;

/**
 * Memory to assemble answers in, used again once an answer has gone out.
 *
 * A page of 40 statuses is about 70 KB, assembled from pieces the renderer kept.
 * Assembled in a new buffer each time, that is memory outside V8's heap,
 * and at a thousand pages a second V8 answers that much of it with a full
 * collection about every second (5-20 ms each, on every request in flight).
 * Buffers handed back after their answer was flushed are used for the next
 * ones instead. At most `keptBytes` are kept between answers, none larger
 * than `largest`; a larger body gets a buffer of its own, left to the
 * garbage collector as before.
 */
export class BodyBuffers {
  readonly #free: Buffer[] = [];
  #freeBytes = 0;

  constructor(
    private readonly keptBytes = 4 * 1024 * 1024,
    private readonly largest = 1024 * 1024,
  ) {}

  /** A buffer of at least `size` bytes, its contents undefined. */
  take(size: number): Buffer {
    let best: Buffer | undefined;
    for (const buffer of this.#free) if (buffer.length >= size && (best === undefined || buffer.length < best.length)) best = buffer;
    if (best !== undefined) {
      this.#free.splice(this.#free.indexOf(best), 1);
      this.#freeBytes -= best.length;
      return best;
    }
    // Sizes in powers of two, so a buffer serves the bodies of about its size that follow.
    return Buffer.allocUnsafeSlow(size <= SMALLEST ? SMALLEST : 2 ** Math.ceil(Math.log2(size)));
  }

  /** Hands back a buffer from `take` that nothing reads any more. */
  give(buffer: Buffer): void {
    if (buffer.length > this.largest || this.#freeBytes + buffer.length > this.keptBytes) return;
    this.#free.push(buffer);
    this.#freeBytes += buffer.length;
  }

  /** The bytes kept for reuse. */
  get keptNow(): number {
    return this.#freeBytes;
  }
}

/** The pieces' UTF-8 length. */
export function piecesLength(pieces: BodyPieces): number {
  let length = 0;
  for (const piece of pieces) length += typeof piece === "string" ? Buffer.byteLength(piece, "utf8") : piece.byteLength;
  return length;
}

/** Writes the pieces into `buffer` from its start; returns the view of what was written. */
export function writePieces(pieces: BodyPieces, buffer: Buffer): Buffer {
  let at = 0;
  for (const piece of pieces) {
    if (typeof piece === "string") at += buffer.write(piece, at, "utf8");
    else {
      buffer.set(piece, at);
      at += piece.byteLength;
    }
  }
  return buffer.subarray(0, at);
}
