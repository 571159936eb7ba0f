import { getLogger } from "../../logging.js";
import type { Queue } from "../../ports/queue.js";
import type { SqlKvStore } from "./sql-kv-store.js";

/** The queue of the repeating job that removes expired federation entries. */
export const KV_PRUNE_QUEUE = "federation-kv-prune";

/** How often expired entries are removed: they are invisible at once, so this only bounds the table's size. */
const PRUNE_EVERY_MS = 6 * 60 * 60 * 1000;

const logger = getLogger(["federation", "kv"]);

/**
 * Removes expired entries of the federation key-value store on a repeating
 * job: remote document caches and the tombstones of deleted remote statuses
 * once their retention has passed. Returns the function that schedules it,
 * called when the server starts (scheduling again keeps the next run).
 */
export function pruneExpiredEntries(queue: Queue, kv: SqlKvStore): () => Promise<void> {
  queue.handle(
    KV_PRUNE_QUEUE,
    async () => {
      const removed = await kv.purge();
      if (removed > 0) logger.info("Removed {removed} expired federation entries", { removed });
    },
    { description: "Removes expired federation cache entries and tombstones" },
  );
  return () => queue.schedule({ name: KV_PRUNE_QUEUE, queue: KV_PRUNE_QUEUE, everyMs: PRUNE_EVERY_MS, payload: {} });
}
