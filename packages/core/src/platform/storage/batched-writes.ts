import type { Kysely } from "kysely";
import type { Storage, StorageCapabilities } from "../../ports/storage.js";
import type { Database } from "../../ports/storage-schema.js";

/**
 * A kind of write gathered into batches: the items of a kind in one batch are written by one call, in its
 * transaction. A kind with results (`R`) returns one per item, in the items' order; each item's writer gets its
 * own once the batch is committed.
 */
export interface BatchedWriteKind<T, R = void> {
  write(trx: Kysely<Database>, items: readonly T[]): Promise<readonly R[]> | Promise<void>;
  /**
   * Whether `write` writes `items` with one statement on `db`'s engine. A batch of this kind's items alone is then
   * written without a transaction of its own: one statement is atomic by itself, and on a database server the
   * transaction's `commit` is a round trip of its own (a batch of an incoming Like's notifications was two).
   */
  oneStatement?(db: Kysely<Database>, items: readonly T[]): boolean;
  /**
   * Writes `items` giving `trx` their statements at once, for a transaction whose handle sends statements given at
   * once together (`StorageCapabilities.pipelining`); a kind without it is written by `write` there too.
   */
  writeAtOnce?(trx: Kysely<Database>, items: readonly T[]): Promise<readonly R[]>;
}

/**
 * A kind whose items are lists of rows that `insert` writes, the rows of a batch's lists together, `perStatement` rows
 * a statement (one statement, and no transaction, for a batch of this kind alone within that many rows).
 */
export function rowInserts<Row>(
  insert: (db: Kysely<Database>, rows: readonly Row[]) => Promise<void>,
  perStatement: number,
): BatchedWriteKind<readonly Row[]> {
  return {
    async write(trx, lists) {
      const rows = lists.flat();
      for (let start = 0; start < rows.length; start += perStatement) await insert(trx, rows.slice(start, start + perStatement));
    },
    oneStatement: (_db, lists) => lists.reduce((count, list) => count + list.length, 0) <= perStatement,
  };
}

/** A piece of work run in a batch's transaction: its own small transaction, committed with the others. */
type TransactionWork = (trx: Kysely<Database>) => Promise<unknown>;

/**
 * Runs each piece of work in the batch's transaction, in turn, or all at once where the transaction sends
 * statements given at once together: the writers did not wait for each other, so neither does their work. Each
 * one's result is its writer's.
 */
const transactionWork: BatchedWriteKind<TransactionWork, unknown> = {
  async write(trx, works) {
    const results: unknown[] = [];
    for (const work of works) results.push(await work(trx));
    return results;
  },
  async writeAtOnce(trx, works) {
    // Every piece is answered before the transaction ends: one that failed must not leave another's statements to
    // run after the rollback.
    const settled = await Promise.allSettled(works.map(async (work) => work(trx)));
    const failed = settled.find((outcome) => outcome.status === "rejected");
    if (failed) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
  },
};

interface Waiting {
  readonly kind: BatchedWriteKind<unknown, unknown>;
  readonly item: unknown;
  readonly resolve: (result: unknown) => void;
  readonly reject: (error: unknown) => void;
}

export interface BatchedWritesOptions {
  /** Batches written at once, each in its own transaction; more than one only where transactions may be open at once. @default 1 */
  readonly batchesAtOnce?: number;
}

/** Batches written at once where the storage allows it: two were faster than one, and more no faster than two. */
export const CONCURRENT_BATCHES = 2;

/** Runs of a lone item that the database keeps rolling back in conflicts with other transactions, before it fails. */
const CONFLICT_ATTEMPTS = 3;

/**
 * Whether the database rolled the transaction back for a conflict with
 * another one (a deadlock, or a serialization failure): SQLSTATE class 40,
 * "transaction rollback", which the same work may pass when run again.
 */
export function rolledBackInConflict(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === "string" && code.length === 5 && code.startsWith("40");
}

/**
 * Writes that follow a change already committed (a new status's home rows, its
 * full-text entry, the mark that its reactions are done) are gathered and
 * committed together: items added in the same turn of the event loop, or
 * while a batch is being written, go into the next batch, one transaction in
 * which each kind writes all its items at once. A commit costs more than the
 * rows it writes (the pages it touched are written to the log again, a page
 * shared by ten rows once), so ten statuses in one batch cost much less than ten
 * batches. Nothing waits for a batch to fill: a lone item is written on the
 * next turn, as it would have been alone. A batch of one kind's items that
 * one statement writes (`BatchedWriteKind.oneStatement`: the notifications
 * of the moment) needs no transaction, and is written without one.
 *
 * An item that fails would roll the whole batch back, so a failed batch is
 * written again one item at a time: only the failing item fails. A kind must
 * therefore do nothing but write in the transaction it is given.
 *
 * Where the storage pipelines a transaction's statements (`pipelining`:
 * PostgreSQL), a batch's pieces of work are given to its transaction at
 * once: their statements go to the database together instead of a round
 * trip each, and the batch fails, to be written again piece by piece, only
 * once every piece has been answered.
 *
 * Where the storage's transactions may be open at once
 * (`concurrentTransactions`: PostgreSQL), two batches are written at once.
 * Each of a batch's statements is a round trip to the database server, and
 * with one batch at a time the process sat idle through them while the next
 * batch's writers waited. The items of two batches written at once were added
 * at different moments by writers that did not wait for each other, so
 * nothing had ordered them; a writer that needs an earlier write committed
 * awaits it, as every writer does. Two batches that take the same rows' locks
 * in opposite orders deadlock: the database fails one of them, which is then
 * written again one item at a time like any failed batch, and a lone item
 * that loses a deadlock is run again.
 */
export class BatchedWrites {
  #next: Waiting[] = [];
  #writing = 0;
  #starting = false;
  readonly #batchesAtOnce: number;

  constructor(
    private readonly storage: Pick<Storage, "transaction" | "db"> & { readonly capabilities?: Pick<StorageCapabilities, "pipelining"> },
    options: BatchedWritesOptions = {},
  ) {
    this.#batchesAtOnce = Math.max(1, Math.trunc(options.batchesAtOnce ?? 1));
  }

  /** Options for `storage`: as many batches at once as its transactions allow. */
  static optionsFor(storage: Pick<Storage, "capabilities">): BatchedWritesOptions {
    return { batchesAtOnce: storage.capabilities.concurrentTransactions ? CONCURRENT_BATCHES : 1 };
  }

  /** Resolves with the item's result once `item` is committed with its batch; rejects with its own error when it fails. */
  write<T, R = void>(kind: BatchedWriteKind<T, R>, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#next.push({
        kind: kind as BatchedWriteKind<unknown, unknown>,
        item,
        resolve: resolve as (result: unknown) => void,
        reject,
      });
      this.#startNext();
    });
  }

  /**
   * Runs `work` as a transaction committed with the batch it joins (the
   * writes of an incoming activity, of a notification, of a new status, a
   * boost or a favourite): like
   * `Storage.transaction`, but a commit shared with the other work of the
   * same moment. `work` may read and write in `trx` only, and may be run
   * again when its batch fails (it then runs alone); the result is that of
   * the run that was committed.
   */
  transaction<R>(work: (trx: Kysely<Database>) => Promise<R>): Promise<R> {
    return this.write(transactionWork, work) as Promise<R>;
  }

  /** On the next turn, makes a batch of every item waiting, unless as many batches as allowed are being written. */
  #startNext(): void {
    if (this.#starting || this.#writing >= this.#batchesAtOnce || this.#next.length === 0) return;
    this.#starting = true;
    setImmediate(() => {
      this.#starting = false;
      const batch = this.#next;
      this.#next = [];
      this.#writing++;
      void this.#commit(batch).finally(() => {
        this.#writing--;
        this.#startNext();
      });
    });
  }

  /** Writes `batch` in one transaction; `attempt` counts the runs of a lone item the database rolled back in a conflict. */
  async #commit(batch: readonly Waiting[], attempt = 1): Promise<void> {
    const byKind = new Map<BatchedWriteKind<unknown, unknown>, Waiting[]>();
    for (const waiting of batch) {
      const same = byKind.get(waiting.kind);
      if (same) same.push(waiting);
      else byKind.set(waiting.kind, [waiting]);
    }
    const results = new Map<Waiting, unknown>();
    const atOnce = batch.length > 1 && this.storage.capabilities?.pipelining === true;
    const writeKinds = async (db: Kysely<Database>): Promise<void> => {
      for (const [kind, same] of byKind) {
        const items = same.map((waiting) => waiting.item);
        const written = await (atOnce && kind.writeAtOnce ? kind.writeAtOnce(db, items) : kind.write(db, items));
        if (written) for (const [i, waiting] of same.entries()) results.set(waiting, written[i]);
      }
    };
    try {
      if (this.#isOneStatement(byKind)) await writeKinds(this.storage.db);
      else await this.storage.transaction(writeKinds, { concurrentStatements: atOnce });
    } catch (error) {
      if (batch.length > 1) {
        for (const waiting of batch) await this.#commit([waiting]);
        return;
      }
      // A deadlock with the other batch written at once fails whichever the database picks, a lone item too.
      if (rolledBackInConflict(error) && attempt < CONFLICT_ATTEMPTS) {
        await this.#commit(batch, attempt + 1);
        return;
      }
      batch[0]?.reject(error);
      return;
    }
    for (const waiting of batch) waiting.resolve(results.get(waiting));
  }

  /** Whether a batch of these kinds is written by one statement: one kind's items that its `oneStatement` says are. */
  #isOneStatement(byKind: ReadonlyMap<BatchedWriteKind<unknown, unknown>, readonly Waiting[]>): boolean {
    const [only, ...others] = byKind;
    if (only === undefined || others.length > 0) return false;
    const [kind, same] = only;
    return (
      kind.oneStatement?.(
        this.storage.db,
        same.map((waiting) => waiting.item),
      ) === true
    );
  }
}
