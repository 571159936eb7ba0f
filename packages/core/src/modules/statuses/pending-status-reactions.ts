import type { Kysely } from "kysely";
import { getLogger } from "../../logging.js";
import type { Queue } from "../../ports/queue.js";
import type { BatchedWriteKind, BatchedWrites } from "../../platform/storage/batched-writes.js";
import {
  deletePendingReactions,
  pendingReactionsBefore,
  recordPendingReactions,
} from "./pending-status-reactions-store.js";
import { indexStatusesForSearch } from "../search/search-index-writes-store.js";
import { findStatus } from "./statuses-store.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";

/** A status whose row is older than this had its reactions cut short (its process stopped): they are run again. */
export const UNFINISHED_AFTER_MS = 5 * 60 * 1000;
/** The queue of the repeating job that runs cut-short reactions again. */
export const UNFINISHED_REACTIONS_QUEUE = "statuses.unfinished_reactions";
/** How often the job looks: cut-short reactions are rare, and each run leaves a finished job behind. */
const RECOVER_EVERY_MS = 10 * 60 * 1000;
/** Statuses taken per run of the job. */
const RECOVERY_BATCH = 100;

const logger = getLogger(["statuses"]);

/**
 * Makes the reactions to a new local status durable. The status's transaction
 * records it as pending; once every reaction has run (home fan-out,
 * notifications, streams, federation's hand-off), `finish` writes what was
 * left for then (on SQLite its full-text entry) and removes the record, in a
 * commit shared with the other statuses finishing at the same moment. A record
 * still there long after its status was answered means the process stopped in
 * between: a repeating job runs those reactions again, reading the status back
 * (at least once, as a crash may fall after some reactions ran).
 */
export class PendingStatusReactions {
  /** Statuses whose reactions have run, finished together: their full-text entries (SQLite) and records' removal. */
  readonly #finished: BatchedWriteKind<string> = {
    write: async (trx, statusIds) => {
      if (this.#indexesHere()) await indexStatusesForSearch(trx, statusIds);
      await deletePendingReactions(trx, statusIds);
    },
    // Where the full-text entries are not written here, the records' removal is the one statement.
    oneStatement: () => !this.#indexesHere(),
  };

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly events: DomainEvents,
    private readonly batchedWrites: BatchedWrites,
  ) {}

  /** In the status's transaction, before the status is inserted. */
  record(trx: Kysely<Database>, statusId: string, now: string): Promise<void> {
    return recordPendingReactions(trx, statusId, now);
  }

  /** Whether a finished status's full-text entry is written here, with its record's removal (SQLite's). */
  #indexesHere(): boolean {
    return this.deps.storage.capabilities.fullTextSearch === "fts5";
  }

  /** The status's reactions have run. */
  finish(statusId: string): Promise<void> {
    return this.batchedWrites.write(this.#finished, statusId);
  }

  /** Runs again the reactions of statuses recorded before `UNFINISHED_AFTER_MS` ago, oldest first; returns how many statuses. */
  async recover(): Promise<number> {
    const db = this.deps.storage.db;
    const before = new Date(this.deps.clock.now().getTime() - UNFINISHED_AFTER_MS).toISOString();
    const statusIds = await pendingReactionsBefore(db, before, RECOVERY_BATCH);
    for (const statusId of statusIds) {
      // A status deleted meanwhile has nothing left to react to; its record goes all the same.
      const status = await findStatus(db, statusId);
      if (status) await this.events.emit({ type: "status.created", statusId, accountId: status.account_id });
      await this.finish(statusId);
    }
    if (statusIds.length > 0) logger.warn("Ran the cut-short reactions of {count} posts again", { count: statusIds.length });
    return statusIds.length;
  }

  /** Registers the worker of the repeating job that runs cut-short reactions again. */
  registerJobs(queue: Queue): void {
    queue.handle(
      UNFINISHED_REACTIONS_QUEUE,
      async () => {
        await this.recover();
      },
      { description: "Runs again the reactions to new posts that a stopped process left unfinished" },
    );
  }

  /** Schedules that job, when the workers start (scheduling again keeps the next run). */
  scheduleRecovery(queue: Queue): Promise<void> {
    return queue.schedule({ name: UNFINISHED_REACTIONS_QUEUE, queue: UNFINISHED_REACTIONS_QUEUE, everyMs: RECOVER_EVERY_MS, payload: {} });
  }
}
