import type { Kysely } from "kysely";
import type { Storage } from "../ports/storage.js";
import type { Database } from "./schema.js";

/** Writes of one piece of work, given the batch's transaction. */
export type BatchedWork = (trx: Kysely<Database>) => Promise<void>;

interface Waiting {
  readonly work: BatchedWork;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Writes that follow a change already committed (a new post's home rows, the
 * mark that its reactions are done) are gathered and committed together: work
 * added in the same turn of the event loop, or while a batch is being
 * written, goes into the next batch, one transaction. A commit costs more
 * than the rows it writes (the pages it touched are written to the log again,
 * a page shared by ten rows once), so ten posts in one batch cost much less
 * than ten batches. Nothing waits for a batch to fill: a lone piece of work
 * is written on the next turn, as it would have been alone.
 *
 * A piece of work that fails would roll the whole batch back, so a failed
 * batch is written again one piece at a time: only the failing piece fails.
 * Work must therefore do nothing but write in the transaction it is given.
 */
export class BatchedWrites {
  #next: Waiting[] = [];
  #draining = false;

  constructor(private readonly storage: Pick<Storage, "transaction">) {}

  /** Resolves once `work` is committed with its batch; rejects with its own error when it fails. */
  write(work: BatchedWork): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#next.push({ work, resolve, reject });
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
    try {
      await this.storage.transaction(async (trx) => {
        for (const waiting of batch) await waiting.work(trx);
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
