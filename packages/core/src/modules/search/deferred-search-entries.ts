import { getLogger } from "../../logging.js";
import type { Storage } from "../../ports/storage.js";
import { hasDeferredPosts, indexDeferredPosts } from "./search-index-writes-store.js";

/** How long a deferred entry may wait for others: at 500 statuses a second, one statement writes 250 entries. */
const DELAY_MS = 500;
/** Entries written by one statement, in one transaction of their own. */
const BATCH = 500;

const logger = getLogger(["search"]);

export interface DeferredSearchEntriesOptions {
  /** @default 500 */
  readonly delayMs?: number;
  /** @default 500 */
  readonly batch?: number;
}

/**
 * The full-text entries (SQLite's FTS5) of statuses from other servers, written
 * a moment after their statuses, many in one statement: FTS5 writes each
 * statement's entries as a segment of its own and merges the segments as
 * they pile up, so an entry written alone in the commit of the incoming
 * activities of the same moment cost more than the status's own rows. The
 * insert trigger lists such a post as waiting, in the status's transaction
 * (migration 0023); this writes the entries of the statuses listed.
 *
 * A search finds the statuses whose entries wait like the others: it has them
 * written first (`beforeSearch`). Statuses left waiting by a process that
 * stopped are indexed when Kith starts again (`flush`). Elsewhere
 * (PostgreSQL's GIN index) a status is indexed by its own insert and nothing
 * waits.
 */
export class DeferredSearchEntries {
  readonly #delayMs: number;
  readonly #batch: number;
  /** Statuses from other servers stored since the last write began: their entries wait. */
  #waiting = 0;
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(
    private readonly storage: Pick<Storage, "capabilities" | "transaction" | "db">,
    options: DeferredSearchEntriesOptions = {},
  ) {
    this.#delayMs = options.delayMs ?? DELAY_MS;
    this.#batch = options.batch ?? BATCH;
  }

  /** Whether entries wait on this storage (SQLite). */
  get enabled(): boolean {
    return this.storage.capabilities.fullTextSearch === "fts5";
  }

  /** Before a search reads the index: writes the entries waiting, if any. */
  async beforeSearch(): Promise<void> {
    if (!this.enabled) return;
    // Statuses stored by this process are counted; the look covers the others (another process, a store of rows by hand).
    if (this.#waiting > 0 || this.#flushing !== null || (await hasDeferredPosts(this.storage.db))) await this.flush();
  }

  /** After a status from another server was committed: its entry is written within the delay. */
  committed(): void {
    if (!this.enabled) return;
    this.#waiting++;
    if (this.#waiting >= this.#batch) void this.flush();
    else this.#schedule();
  }

  /**
   * Writes every entry waiting, including those of statuses left waiting by a
   * process that stopped before writing them. Never rejects: a failed write is
   * logged and tried again after the delay, and a search meanwhile misses
   * the statuses whose entries wait.
   */
  flush(): Promise<void> {
    if (!this.enabled) return Promise.resolve();
    this.#flushing ??= this.#drain()
      .catch((error: unknown) => {
        logger.error("Failed to write deferred full-text entries: {error}", { error });
        this.#waiting = Math.max(this.#waiting, 1);
      })
      .finally(() => {
        this.#flushing = null;
        if (this.#waiting > 0) this.#schedule();
      });
    return this.#flushing;
  }

  /** Stops the timer (the storage is closing); what waits is written at the next start. */
  stop(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }

  #schedule(): void {
    if (this.#timer || this.#flushing) return;
    this.#timer = setTimeout(() => {
      this.#timer = null;
      void this.flush();
    }, this.#delayMs);
    // A process may end with entries waiting: the list is kept, and they are written at its next start.
    this.#timer.unref?.();
  }

  async #drain(): Promise<void> {
    this.stop();
    for (;;) {
      this.#waiting = 0;
      const taken = await this.storage.transaction((trx) => indexDeferredPosts(trx, this.#batch));
      // A status committed during the write is taken by the next round, as are statuses left beyond the batch.
      if (taken < this.#batch && this.#waiting === 0) return;
    }
  }
}
