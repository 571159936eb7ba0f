import { BoundedMap } from "../../bounded-map.js";

/**
 * What was rendered from an entity's inputs, kept per entity id for the next
 * request: reused while the inputs are the same values (compared one by one
 * with ===), made again when any differs. The caller passes everything the
 * value is made from as read this time (a row's columns, or the columns that
 * can change with it; the texts of its parts), so an entry can be old but
 * never served for changed data: a change on another process is seen in the
 * rows the next request reads.
 */
export class RenderMemo<T> {
  readonly #entries: BoundedMap<string, { readonly inputs: readonly unknown[]; readonly value: T }>;

  constructor(capacity: number) {
    this.#entries = new BoundedMap(capacity);
  }

  /** What was kept for `id` from these same inputs, or undefined. */
  get(id: string, inputs: readonly unknown[]): T | undefined {
    const entry = this.#entries.use(id);
    if (!entry) return undefined;
    if (!sameValues(entry.inputs, inputs)) {
      // Made from what no longer is: of no use to anyone (a request still reading the old rows makes its own).
      this.#entries.delete(id);
      return undefined;
    }
    return entry.value;
  }

  set(id: string, inputs: readonly unknown[], value: T): void {
    this.#entries.set(id, { inputs, value });
  }

  /** Drops what was kept for `id` (its entity was written in this process). */
  forget(id: string): void {
    this.#entries.delete(id);
  }

  /** The kept value, or `make()`'s, kept for next time. */
  getOrMake(id: string, inputs: readonly unknown[], make: () => T): T {
    const kept = this.get(id, inputs);
    if (kept !== undefined) return kept;
    const made = make();
    this.set(id, inputs, made);
    return made;
  }

  get size(): number {
    return this.#entries.size;
  }
}

function sameValues(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
