/**
 * Cuts a byte stream into parts of a fixed size, holding at most one part in
 * memory: how a streamed upload of unknown length becomes multipart-upload
 * parts, each with a known length and hash.
 */
export class PartReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  /** What the last read took from the source beyond the part it filled. */
  #carry: Uint8Array | null = null;
  #ended = false;

  constructor(source: ReadableStream<Uint8Array>) {
    this.#reader = source.getReader();
  }

  /** True once the source has ended and every byte has been handed out. */
  get ended(): boolean {
    return this.#ended && this.#carry === null;
  }

  /** The next `size` bytes, or fewer only at the end of the stream (none once it has ended). */
  async read(size: number): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let filled = 0;
    if (this.#carry !== null) {
      const carry = this.#carry;
      this.#carry = null;
      filled = this.#take(carry, size, chunks, filled);
    }
    while (filled < size && !this.#ended) {
      const { done, value } = await this.#reader.read();
      if (done) {
        this.#ended = true;
        break;
      }
      filled = this.#take(value, size, chunks, filled);
    }
    return concat(chunks, filled);
  }

  /** Stops reading the source, telling it why. */
  async cancel(reason: unknown): Promise<void> {
    this.#carry = null;
    this.#ended = true;
    await this.#reader.cancel(reason).catch(() => undefined);
  }

  #take(chunk: Uint8Array, size: number, chunks: Uint8Array[], filled: number): number {
    const room = size - filled;
    if (chunk.byteLength > room) {
      chunks.push(chunk.subarray(0, room));
      this.#carry = chunk.subarray(room);
      return size;
    }
    if (chunk.byteLength > 0) chunks.push(chunk);
    return filled + chunk.byteLength;
  }
}

/** One new array holding `chunks`: a copy, so a source that reuses its buffers cannot change a part in flight. */
function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  const part = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    part.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return part;
}
