import { type Kysely, type RawBuilder, sql } from "kysely";
import { KithError } from "../../domain/errors.js";
import { type DailyJobStats, JOB_STATUSES, type JobCounts, type JobListQuery, type JobRecord, type JobStatus } from "../../ports/queue.js";
import type { Database } from "../../ports/storage-schema.js";
import { statusCondition, statusExpression, toJobRecord } from "./job-rows.js";
import { returningToWaiting } from "./job-transitions.js";
import { emptyJobCounts } from "./job-status.js";

/**
 * The jobs API's reads and repairs over the `jobs` table. Statuses other
 * than the stored states (submitted, schedule, retries) are conditions on
 * tries and run time, evaluated at `now`.
 */

const KNOWN_STATUSES: ReadonlySet<string> = new Set<string>(JOB_STATUSES);

/** Most jobs one list call returns. */
const MAX_LIST_LIMIT = 1_000;

export async function listJobs(db: Kysely<Database>, query: JobListQuery, now: Date): Promise<JobRecord[]> {
  const limit = Math.max(0, Math.min(MAX_LIST_LIMIT, Math.trunc(query.limit)));
  if (limit === 0) return [];
  const at = now.toISOString();
  let select = db.selectFrom("jobs").selectAll().orderBy("id", "desc").limit(limit);
  if (query.queue !== undefined) select = select.where("queue", "=", query.queue);
  if (query.status !== undefined) {
    const status = query.status;
    select = select.where((eb) => statusCondition(eb, status, at));
  }
  if (query.maxId !== undefined) select = select.where("id", "<", query.maxId);
  const rows = await select.execute();
  return rows.map((row) => toJobRecord(row, now));
}

export async function getJob(db: Kysely<Database>, id: string, now: Date): Promise<JobRecord | null> {
  const row = await db.selectFrom("jobs").selectAll().where("id", "=", id).executeTakeFirst();
  return row ? toJobRecord(row, now) : null;
}

export async function countJobs(db: Kysely<Database>, queue: string | undefined, now: Date): Promise<JobCounts> {
  const status = statusExpression(now.toISOString());
  // GROUP BY 1 (the first column): repeating the expression would repeat its parameter, which PostgreSQL cannot match.
  const where = queue === undefined ? sql`` : sql`WHERE queue = ${queue}`;
  const { rows } = await sql<{ status: string; count: number }>`
    SELECT ${status} AS status, count(*) AS count FROM jobs ${where} GROUP BY 1`.execute(db);
  const counts = emptyJobCounts();
  for (const row of rows) {
    if (KNOWN_STATUSES.has(row.status)) counts[row.status as JobStatus] += Number(row.count);
  }
  return counts;
}

/** What a retry writes: the job waits again, to run now, with its tries and its last run forgotten. */
function retriedJobChanges(at: string, deduplicationKey: RawBuilder<string | null> | null) {
  return {
    state: "waiting" as const,
    tries: 0,
    run_at: at,
    started_at: null,
    finished_at: null,
    locked_by: null,
    locked_until: null,
    updated_at: at,
    deduplication_key: deduplicationKey,
  };
}

/** A failed or dead-letter job back to waiting, to run now with its tries reset. */
export async function retryJob(db: Kysely<Database>, id: string, now: Date): Promise<JobRecord> {
  const at = now.toISOString();
  const row = await returningToWaiting((deduplicationKey) =>
    db
      .updateTable("jobs")
      .set(retriedJobChanges(at, deduplicationKey))
      .where("id", "=", id)
      .where("state", "in", ["failed", "dlq"])
      .returningAll()
      .executeTakeFirst(),
  );
  if (row) return toJobRecord(row, now);
  const existing = await db.selectFrom("jobs").select("state").where("id", "=", id).executeTakeFirst();
  throw new KithError(existing ? "job.not_retryable" : "job.not_found");
}

/** Every failed job of a queue back to waiting, tries reset; how many. */
export async function retryAllJobs(db: Kysely<Database>, queue: string, now: Date): Promise<number> {
  const at = now.toISOString();
  const result = await returningToWaiting(
    (deduplicationKey) =>
      db
        .updateTable("jobs")
        .set(retriedJobChanges(at, deduplicationKey))
        .where("queue", "=", queue)
        .where("state", "=", "failed")
        .executeTakeFirst(),
    { withNewerFailed: true },
  );
  return Number(result.numUpdatedRows);
}

/** Deletes a job that is not active. */
export async function removeJob(db: Kysely<Database>, id: string): Promise<void> {
  const result = await db.deleteFrom("jobs").where("id", "=", id).where("state", "<>", "active").executeTakeFirst();
  if (Number(result.numDeletedRows) === 1) return;
  const existing = await db.selectFrom("jobs").select("state").where("id", "=", id).executeTakeFirst();
  throw new KithError(existing ? "job.active" : "job.not_found");
}

/** Deletes the jobs of a queue in one status; active ones are refused (a worker holds them). */
export async function clearJobs(db: Kysely<Database>, queue: string, status: JobStatus, now: Date): Promise<number> {
  if (status === "active") throw new KithError("job.active");
  const at = now.toISOString();
  const result = await db
    .deleteFrom("jobs")
    .where("queue", "=", queue)
    .where((eb) => statusCondition(eb, status, at))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** Finished and failed counts of the last `days` UTC days, today included, oldest first; days without jobs are zeros. */
export async function dailyStats(db: Kysely<Database>, days: number, queue: string | undefined, now: Date): Promise<DailyJobStats[]> {
  const count = Math.max(0, Math.min(3_660, Math.trunc(days)));
  if (count === 0) return [];
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const dayList = Array.from({ length: count }, (_, i) => new Date(today - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  let select = db
    .selectFrom("job_daily_stats")
    .select((eb) => ["day", eb.fn.sum<number>("finished").as("finished"), eb.fn.sum<number>("failed").as("failed")])
    .where("day", ">=", dayList[0] ?? "")
    .groupBy("day");
  if (queue !== undefined) select = select.where("queue", "=", queue);
  const rows = await select.execute();
  const byDay = new Map(rows.map((row) => [row.day, row]));
  return dayList.map((day) => {
    const row = byDay.get(day);
    return { day, finished: Number(row?.finished ?? 0), failed: Number(row?.failed ?? 0) };
  });
}
