/**
 * A map that holds at most `capacity` entries: a write past it drops the
 * entry written longest ago, or, for entries read with `use`, used longest
 * ago. The per-process caches (imported keys, kept texts, address verdicts,
 * key-value entries) are all of this kind.
 *
 * `use` moves an entry to the newest end only when it has drifted into the
 * older half of the order (more than half the capacity written since it was
 * last placed): a page read uses the same few hundred entries again and
 * again, and moving each on every read (a delete and an insert) cost more
 * than the read. An entry is never dropped within half the capacity's
 * writes of its last use.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, { value: V; placed: number }>();
  /** How many times an entry was placed at the newest end (written, or moved there by `use`). */
  #placements = 0;

  constructor(readonly capacity: number) {}

  /** The value, its place in the order unchanged. */
  get(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /** The value, kept among the most recently used (the last to be dropped). */
  use(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#placements - entry.placed > this.capacity / 2) {
      this.#entries.delete(key);
      entry.placed = this.#placements++;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /** Sets the value as the newest entry, dropping the oldest beyond the capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, placed: this.#placements++ });
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }

  get size(): number {
    return this.#entries.size;
  }
}
