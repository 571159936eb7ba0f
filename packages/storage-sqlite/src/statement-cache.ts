/**
 * Prepared statements by their SQL text, at most `capacity` of them, the
 * least recently used dropped first (SQLite finalizes a dropped statement
 * when it is collected).
 *
 * Two generations instead of an order kept on every use: a lookup that finds
 * its statement in the current generation changes nothing, which keeps the
 * hit of every query as cheap as a `Map` read. When the current generation
 * is full it becomes the previous one, and the previous one is dropped; a
 * statement found in the previous generation moves back to the current one.
 * So a statement used within the last `capacity / 2` insertions is never
 * dropped, and at most `capacity` are held.
 */
export class StatementCache<S> {
  #current = new Map<string, S>();
  #previous = new Map<string, S>();
  readonly #generation: number;

  constructor(capacity: number) {
    this.#generation = Math.max(1, Math.floor(capacity / 2));
  }

  /** The statement prepared for `text`, preparing it when it is not held. */
  get(text: string, prepare: (text: string) => S): S {
    const held = this.#current.get(text);
    if (held !== undefined) return held;
    const kept = this.#previous.get(text);
    if (kept !== undefined) this.#previous.delete(text);
    const statement = kept ?? prepare(text);
    if (this.#current.size >= this.#generation) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(text, statement);
    return statement;
  }

  /** Statements held now. */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }
}
