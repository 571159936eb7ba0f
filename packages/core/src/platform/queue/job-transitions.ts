import { type ExpressionBuilder, type Kysely, type OnConflictBuilder, type QueryCreator, type RawBuilder, sql } from "kysely";
import type { Storage } from "../../ports/storage.js";
import type { Database, JobRow } from "../../ports/storage-schema.js";
import { isDeduplicationConflict } from "./job-rows.js";

/**
 * The statements that move a job between states. Each is one conditional
 * statement (or a short transaction of them), never a read followed by a
 * write, so that several workers and processes cannot both act on one job.
 */

export type QueueStore = Pick<Storage, "db" | "transaction" | "capabilities">;

/** What identifies one attempt at a job: its id, and the tries count its claim set. */
export interface Claim {
  readonly id: string;
  readonly queue: string;
  readonly tries: number;
}

export interface ClaimInput {
  readonly queue: string;
  readonly limit: number;
  readonly processId: string;
  readonly now: Date;
  readonly leaseMs: number;
  /** The engine has FOR UPDATE SKIP LOCKED (PostgreSQL): concurrent claimers pass over each other's rows instead of waiting. */
  readonly skipLocked: boolean;
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/**
 * Takes up to `limit` runnable jobs of a queue: waiting, due, and, when they
 * have an ordering key, the oldest waiting job of that key with no job of the
 * key active. One UPDATE over a subselect: on SQLite the single writer makes
 * it atomic; on PostgreSQL the subselect locks its rows with SKIP LOCKED, so
 * a concurrent claimer takes other rows, and a row changed meanwhile is
 * re-checked against `state = 'waiting'` before it is updated. At most one
 * job per ordering key is ever runnable, so one statement cannot take two.
 */
export async function claimJobs(db: Kysely<Database>, input: ClaimInput): Promise<JobRow[]> {
  const now = input.now.toISOString();
  const until = new Date(input.now.getTime() + input.leaseMs).toISOString();
  const lock = input.skipLocked ? sql`FOR UPDATE OF j SKIP LOCKED` : sql``;
  const { rows } = await sql<JobRow>`
    UPDATE jobs SET state = 'active', tries = tries + 1, locked_by = ${input.processId}, locked_until = ${until},
      started_at = ${now}, updated_at = ${now}
    WHERE id IN (
      SELECT j.id FROM jobs j
      WHERE j.queue = ${input.queue} AND j.state = 'waiting' AND j.run_at <= ${now}
        AND (j.ordering_key IS NULL OR NOT EXISTS (
          SELECT 1 FROM jobs o
          WHERE o.queue = j.queue AND o.ordering_key = j.ordering_key AND o.ordering_key IS NOT NULL AND o.id <> j.id
            AND (o.state = 'active' OR (o.state = 'waiting' AND o.id < j.id))))
      ORDER BY j.run_at, j.id
      LIMIT ${input.limit}
      ${lock}
    )
    RETURNING *`.execute(db);
  return rows.sort((a, b) => (a.run_at === b.run_at ? (a.id < b.id ? -1 : 1) : a.run_at < b.run_at ? -1 : 1));
}

/** The row of this very attempt: still active, held by this process, and not taken up again since. */
function heldBy(claim: Claim, processId: string) {
  return (eb: ExpressionBuilder<Database, "jobs">) =>
    eb.and([eb("id", "=", claim.id), eb("state", "=", "active"), eb("locked_by", "=", processId), eb("tries", "=", claim.tries)]);
}

/**
 * The deduplication key a job keeps when it goes back to waiting: none when
 * another job of its key already waits (the unique index allows one), or,
 * when many go back at once, when a newer job of its key goes back with it.
 * The job still runs; it just no longer absorbs later enqueues.
 */
function deduplicationKeyOnReturn(withNewerFailed: boolean): RawBuilder<string | null> {
  const newer = withNewerFailed ? sql`OR (w.state = 'failed' AND w.id > jobs.id)` : sql``;
  return sql<string | null>`CASE WHEN jobs.deduplication_key IS NULL THEN NULL
    WHEN EXISTS (
      SELECT 1 FROM jobs w
      WHERE w.queue = jobs.queue AND w.deduplication_key = jobs.deduplication_key AND w.id <> jobs.id
        AND (w.state = 'waiting' ${newer}))
    THEN NULL ELSE jobs.deduplication_key END`;
}

/**
 * Runs a statement that puts jobs back to waiting; should a job of the same
 * key be enqueued between its check and its write (PostgreSQL, another
 * session), runs it again dropping the returning jobs' keys.
 */
export async function returningToWaiting<T>(
  write: (deduplicationKey: RawBuilder<string | null> | null) => Promise<T>,
  options: { withNewerFailed?: boolean } = {},
): Promise<T> {
  try {
    return await write(deduplicationKeyOnReturn(options.withNewerFailed ?? false));
  } catch (error) {
    if (!isDeduplicationConflict(error)) throw error;
    return write(null);
  }
}

/** Jobs of a queue to add to a day's counts. */
type DailyCounts = { readonly finished?: number; readonly failed?: number };

export async function addDailyStats(db: Kysely<Database>, queue: string, day: string, counts: DailyCounts): Promise<void> {
  await db
    .insertInto("job_daily_stats")
    .values({ day, queue, finished: counts.finished ?? 0, failed: counts.failed ?? 0 })
    .onConflict(addingToCounts)
    .execute();
}

/** A day's row of a queue that exists already takes the new counts added to its own. */
function addingToCounts(oc: OnConflictBuilder<Database, "job_daily_stats">) {
  return oc.columns(["day", "queue"]).doUpdateSet((eb) => ({
    finished: eb("job_daily_stats.finished", "+", eb.ref("excluded.finished")),
    failed: eb("job_daily_stats.failed", "+", eb.ref("excluded.failed")),
  }));
}

/** Marks an attempt done, and counts it; false when the job was no longer this attempt's (its lease had expired). */
export function finishJob(store: QueueStore, claim: Claim, processId: string, now: Date): Promise<boolean> {
  return closeAttempt(store, claim, processId, { state: "finished" }, { finished: 1 }, now);
}

/** Ends an attempt for good as failed (out of tries) or dead letter (unreadable payload), and counts it as failed. */
export function endJob(
  store: QueueStore,
  claim: Claim,
  processId: string,
  outcome: { readonly state: "failed" | "dlq"; readonly error: string },
  now: Date,
): Promise<boolean> {
  return closeAttempt(store, claim, processId, { state: outcome.state, last_error: outcome.error }, { failed: 1 }, now);
}

/** What ending an attempt writes to its job besides the release of its lease. */
type Closing = { readonly state: "finished" | "failed" | "dlq"; readonly last_error?: string };

/**
 * Ends the attempt `claim` with `closing` and adds it to the day's counts, both or neither; false when the job was no
 * longer this attempt's. Where a statement's `with` may write (PostgreSQL), that is one statement: the counts' row of
 * a queue is shared by all its workers, and each holds its lock until it commits, so in a transaction of three round
 * trips every other finishing job of the queue waited for the holder's process to send the next one (14 ms a job
 * under the inbox benchmark's load); in one statement the lock is held for the database server's own work only.
 */
async function closeAttempt(
  store: QueueStore,
  claim: Claim,
  processId: string,
  closing: Closing,
  counts: DailyCounts,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  const closed = (db: QueryCreator<Database>) =>
    db
      .updateTable("jobs")
      .set({ ...closing, finished_at: at, locked_by: null, locked_until: null, updated_at: at })
      .where(heldBy(claim, processId));
  if (store.capabilities.writingWith) {
    const rows = await store.db
      .with("closed", (db) => closed(db).returning("queue"))
      .insertInto("job_daily_stats")
      .columns(["day", "queue", "finished", "failed"])
      .expression((eb) =>
        eb.selectFrom("closed").select([
          sql.val(utcDay(now)).as("day"),
          "closed.queue",
          // Literals: a parameter in an inserted select is typed as text, not as the integer column it fills.
          sql.lit(counts.finished ?? 0).as("finished"),
          sql.lit(counts.failed ?? 0).as("failed"),
        ]),
      )
      .onConflict(addingToCounts)
      .returning("queue")
      .execute();
    return rows.length === 1;
  }
  return store.transaction(async (trx) => {
    const result = await closed(trx).executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) return false;
    await addDailyStats(trx, claim.queue, utcDay(now), counts);
    return true;
  });
}

/** Puts a failed attempt back to waiting until `runAt`. */
export function scheduleRetry(
  db: Kysely<Database>,
  claim: Claim,
  processId: string,
  runAt: Date,
  error: string,
  now: Date,
): Promise<boolean> {
  const at = now.toISOString();
  return returningToWaiting(async (deduplicationKey) => {
    const result = await db
      .updateTable("jobs")
      .set({
        state: "waiting",
        run_at: runAt.toISOString(),
        last_error: error,
        locked_by: null,
        locked_until: null,
        updated_at: at,
        deduplication_key: deduplicationKey,
      })
      .where(heldBy(claim, processId))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  });
}

/**
 * Gives an attempt back untried: the worker is stopping and took the job
 * without running it, the handler gave up because it was told to stop, or
 * the process could not run it yet (see `cannotRunYet`). The job runs again
 * at `runAt` (at once by default), elsewhere or after the restart.
 */
export function releaseJob(db: Kysely<Database>, claim: Claim, processId: string, now: Date, runAt: Date = now): Promise<boolean> {
  const at = now.toISOString();
  return returningToWaiting(async (deduplicationKey) => {
    const result = await db
      .updateTable("jobs")
      .set((eb) => ({
        state: "waiting",
        tries: eb("tries", "-", 1),
        run_at: runAt.toISOString(),
        locked_by: null,
        locked_until: null,
        updated_at: at,
        deduplication_key: deduplicationKey,
      }))
      .where(heldBy(claim, processId))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) === 1;
  });
}

/** Extends the leases of the jobs this process is running. */
export async function renewLeases(db: Kysely<Database>, ids: readonly string[], processId: string, until: Date): Promise<number> {
  if (ids.length === 0) return 0;
  const result = await db
    .updateTable("jobs")
    .set({ locked_until: until.toISOString() })
    .where("id", "in", [...ids])
    .where("state", "=", "active")
    .where("locked_by", "=", processId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const LEASE_EXPIRED = "The worker running this job stopped renewing its lease (it died or hung); the job was taken up again";

/**
 * Takes up the jobs whose worker died: active jobs past their lease go back
 * to waiting, to run again at once, or, when that was their last try, are
 * failed. A cheap look first, as there is usually nothing to do.
 */
export async function reapExpiredLeases(store: QueueStore, now: Date): Promise<number> {
  const at = now.toISOString();
  const expired = (eb: ExpressionBuilder<Database, "jobs">) => eb.and([eb("state", "=", "active"), eb("locked_until", "<", at)]);
  const any = await store.db.selectFrom("jobs").select("id").where(expired).limit(1).executeTakeFirst();
  if (!any) return 0;
  return returningToWaiting((deduplicationKey) =>
    store.transaction(async (trx) => {
      const failed = await trx
        .updateTable("jobs")
        .set({ state: "failed", last_error: LEASE_EXPIRED, finished_at: at, locked_by: null, locked_until: null, updated_at: at })
        .where(expired)
        .where((eb) => eb("tries", ">=", eb.ref("max_attempts")))
        .returning("queue")
        .execute();
      const perQueue = new Map<string, number>();
      for (const { queue } of failed) perQueue.set(queue, (perQueue.get(queue) ?? 0) + 1);
      for (const [queue, count] of perQueue) await addDailyStats(trx, queue, utcDay(now), { failed: count });
      const returned = await trx
        .updateTable("jobs")
        .set({
          state: "waiting",
          run_at: at,
          last_error: LEASE_EXPIRED,
          locked_by: null,
          locked_until: null,
          updated_at: at,
          deduplication_key: deduplicationKey,
        })
        .where(expired)
        .executeTakeFirst();
      return failed.length + Number(returned.numUpdatedRows);
    }),
  );
}

export interface NewJob {
  readonly id: string;
  readonly queue: string;
  /** JSON text. */
  readonly payload: string;
  /** Null: the queue's max retries + 1, read from its row in the same statement. */
  readonly maxAttempts: number | null;
  readonly backoffBaseMs: number;
  readonly backoffMaxMs: number;
  readonly runAt: Date;
  readonly deduplicationKey: string | null;
  readonly orderingKey: string | null;
  readonly now: Date;
}

/** Attempts of a job whose queue has no row yet (nobody called `handle()` for it): the port's default of 4 retries + 1. */
const FALLBACK_MAX_ATTEMPTS = 5;

/** Tries at an insert that loses to a deduplicated job which then leaves `waiting` before it can be read. */
const DEDUPLICATION_ROUNDS = 5;

/**
 * Writes a job, in `db` (the caller's transaction, when given), and returns
 * its id, or the id of the job of the same deduplication key that waits
 * already. The unique index on waiting jobs' keys decides between concurrent
 * enqueues; `ON CONFLICT DO NOTHING` makes the loser read the winner.
 */
function jobValues(job: NewJob) {
  const at = job.now.toISOString();
  const maxAttempts =
    job.maxAttempts ?? sql<number>`COALESCE((SELECT max_retries + 1 FROM job_queues WHERE name = ${job.queue}), ${FALLBACK_MAX_ATTEMPTS})`;
  return {
    id: job.id,
    queue: job.queue,
    state: "waiting",
    payload: job.payload,
    tries: 0,
    max_attempts: maxAttempts,
    backoff_base_ms: job.backoffBaseMs,
    backoff_max_ms: job.backoffMaxMs,
    run_at: job.runAt.toISOString(),
    deduplication_key: job.deduplicationKey,
    ordering_key: job.orderingKey,
    locked_by: null,
    locked_until: null,
    last_error: null,
    created_at: at,
    started_at: null,
    finished_at: null,
    updated_at: at,
  } as const;
}

/** Jobs a multi-row insert writes at most: 18 parameters each stay well under SQLite's and PostgreSQL's limits. */
const INSERT_BATCH = 500;

/**
 * Writes jobs without deduplication keys, many a statement (a fan-out of
 * deliveries is one statement instead of one per inbox); ids as given, so
 * jobs of one call keep their order.
 */
export async function insertJobs(db: Kysely<Database>, jobs: readonly NewJob[]): Promise<void> {
  for (const job of jobs) if (job.deduplicationKey !== null) throw new Error("insertJobs writes jobs without deduplication keys");
  for (let start = 0; start < jobs.length; start += INSERT_BATCH) {
    await db
      .insertInto("jobs")
      .values(jobs.slice(start, start + INSERT_BATCH).map(jobValues))
      .execute();
  }
}

export async function insertJob(db: Kysely<Database>, job: NewJob): Promise<string> {
  for (let round = 0; round < DEDUPLICATION_ROUNDS; round++) {
    const inserted = await db
      .insertInto("jobs")
      .values(jobValues(job))
      // The predicate is literal SQL: PostgreSQL matches a partial unique index only by a predicate it can prove.
      .onConflict((oc) =>
        oc.columns(["queue", "deduplication_key"]).where(sql<boolean>`state = 'waiting' AND deduplication_key IS NOT NULL`).doNothing(),
      )
      .returning("id")
      .executeTakeFirst();
    if (inserted) return inserted.id;
    if (job.deduplicationKey === null) break;
    const waiting = await db
      .selectFrom("jobs")
      .select("id")
      .where("queue", "=", job.queue)
      .where("deduplication_key", "=", job.deduplicationKey)
      .where("state", "=", "waiting")
      .executeTakeFirst();
    if (waiting) return waiting.id;
  }
  throw new Error(`Could not enqueue a job on queue ${job.queue}: its deduplication key kept changing hands`);
}
