import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

/** Rows one statement deletes at most: a long backlog is removed in steps, never in one long write. */
const PRUNE_BATCH = 500;
/** Statements one pruning pass runs at most per queue; what is left waits for the next pass. */
const PRUNE_BATCHES_PER_PASS = 20;

/**
 * Deletes the finished jobs of every queue that finished before `before`, and
 * returns how many. Finished jobs stay listed in the jobs API for the
 * retention (what an administrator looks back on); after it they are only
 * weight: every delivery, inbox retry and media job would otherwise stay a row
 * for good, payload included (a delivery's payload holds the sender's keys).
 * Failed and dead-lettered jobs are kept: someone may still retry them.
 *
 * A job runs at or after its `run_at`, so one finished before `before` has an
 * earlier `run_at` too: the queue's (queue, state, run_at) index finds the
 * candidates without reading the newer finished jobs.
 */
export async function pruneFinishedJobs(db: Kysely<Database>, before: Date): Promise<number> {
  const cutoff = before.toISOString();
  const queues = await db.selectFrom("job_queues").select("name").execute();
  let deleted = 0;
  for (const { name } of queues) {
    for (let pass = 0; pass < PRUNE_BATCHES_PER_PASS; pass++) {
      const result = await db
        .deleteFrom("jobs")
        .where("id", "in", (eb) =>
          eb
            .selectFrom("jobs")
            .select("id")
            .where("queue", "=", name)
            .where("state", "=", "finished")
            .where("run_at", "<", cutoff)
            .where("finished_at", "<", cutoff)
            .limit(PRUNE_BATCH),
        )
        .executeTakeFirst();
      const count = Number(result.numDeletedRows);
      deleted += count;
      if (count < PRUNE_BATCH) break;
    }
  }
  return deleted;
}
