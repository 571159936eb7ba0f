import type { Kysely } from "kysely";
import type { Storage } from "../ports/storage.js";
import type { Database } from "./schema.js";

/** A kind of write gathered into batches: the items of a kind in one batch are written by one call, in its transaction. */
export interface BatchedWriteKind<T> {
  write(trx: Kysely<Database>, items: readonly T[]): Promise<void>;
}

interface Waiting {
  readonly kind: BatchedWriteKind<unknown>;
  readonly item: unknown;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes that follow a change already committed (a new post's home rows, its
 * full-text entry, the mark that its reactions are done) are gathered and
 * committed together: items added in the same turn of the event loop, or
 * while a batch is being written, go into the next batch, one transaction in
 * which each kind writes all its items at once. A commit costs more than the
 * rows it writes (the pages it touched are written to the log again, a page
 * shared by ten rows once), so ten posts in one batch cost much less than ten
 * batches. Nothing waits for a batch to fill: a lone item is written on the
 * next turn, as it would have been alone.
 *
 * An item that fails would roll the whole batch back, so a failed batch is
 * written again one item at a time: only the failing item fails. A kind must
 * therefore do nothing but write in the transaction it is given.
 */
export class BatchedWrites {
  #next: Waiting[] = [];
  #draining = false;

  constructor(private readonly storage: Pick<Storage, "transaction">) {}

  /** Resolves once `item` is committed with its batch; rejects with its own error when it fails. */
  write<T>(kind: BatchedWriteKind<T>, item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#next.push({ kind: kind as BatchedWriteKind<unknown>, item, resolve, reject });
      if (this.#draining) return;
      this.#draining = true;
      setImmediate(() => void this.#drain());
    });
  }

  async #drain(): Promise<void> {
    try {
      while (this.#next.length > 0) {
        const batch = this.#next;
        this.#next = [];
        await this.#commit(batch);
      }
    } finally {
      this.#draining = false;
    }
  }

  async #commit(batch: readonly Waiting[]): Promise<void> {
    const byKind = new Map<BatchedWriteKind<unknown>, unknown[]>();
    for (const waiting of batch) {
      const items = byKind.get(waiting.kind);
      if (items) items.push(waiting.item);
      else byKind.set(waiting.kind, [waiting.item]);
    }
    try {
      await this.storage.transaction(async (trx) => {
        for (const [kind, items] of byKind) await kind.write(trx, items);
      });
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      for (const waiting of batch) await this.#commit([waiting]);
      return;
    }
    for (const waiting of batch) waiting.resolve();
  }
}
