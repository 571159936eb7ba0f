/**
 * A map that holds at most `capacity` entries: a write past it drops the
 * entry written longest ago, or, for entries read with `use`, used longest
 * ago. The per-process caches (imported keys, kept texts, address verdicts,
 * key-value entries) are all of this kind.
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, V>();

  constructor(readonly capacity: number) {}

  /** The value, its place in the order unchanged. */
  get(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /** The value, made the most recently used (the last to be dropped). */
  use(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** Sets the value as the newest entry, dropping the oldest beyond the capacity. */
  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    while (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (oldest.done) break;
      this.#entries.delete(oldest.value);
    }
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
