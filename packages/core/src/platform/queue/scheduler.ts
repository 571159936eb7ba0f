import { type Kysely, sql } from "kysely";
import { KithError } from "../../domain/errors.js";
import type { RepeatingJob } from "../../ports/queue.js";
import type { Database, JobScheduleRow } from "../../ports/storage-schema.js";
import { serializePayload } from "./job-rows.js";
import type { QueueStore } from "./job-transitions.js";

/** Schedules taken per scheduler run; more wait for the next run. */
const DUE_BATCH = 100;

function checkRepeatingJob(job: RepeatingJob): void {
  const details: { field: string; message: string }[] = [];
  if (typeof job.name !== "string" || job.name === "") details.push({ field: "name", message: "must be non-empty text" });
  if (typeof job.queue !== "string" || job.queue === "") details.push({ field: "queue", message: "must be non-empty text" });
  if (!Number.isSafeInteger(job.everyMs) || job.everyMs < 1)
    details.push({ field: "everyMs", message: "must be a whole number of milliseconds, 1 or more" });
  if (details.length > 0) throw new KithError("request.validation_failed", { details });
}

/**
 * Creates or replaces a schedule. Its first run comes `everyMs` from now.
 * Replacing it with the same interval keeps its next run, so that an
 * application that schedules its repeating jobs at every start does not
 * postpone them with each restart.
 */
export async function saveSchedule(db: Kysely<Database>, job: RepeatingJob, now: Date): Promise<void> {
  checkRepeatingJob(job);
  await db
    .insertInto("job_schedules")
    .values({
      name: job.name,
      queue: job.queue,
      every_ms: job.everyMs,
      payload: serializePayload(job.payload),
      next_run_at: new Date(now.getTime() + job.everyMs).toISOString(),
      updated_at: now.toISOString(),
    })
    .onConflict((oc) =>
      oc.column("name").doUpdateSet({
        queue: (eb) => eb.ref("excluded.queue"),
        payload: (eb) => eb.ref("excluded.payload"),
        next_run_at: sql<string>`CASE WHEN job_schedules.every_ms = excluded.every_ms THEN job_schedules.next_run_at ELSE excluded.next_run_at END`,
        every_ms: (eb) => eb.ref("excluded.every_ms"),
        updated_at: (eb) => eb.ref("excluded.updated_at"),
      }),
    )
    .execute();
}

export async function deleteSchedule(db: Kysely<Database>, name: string): Promise<void> {
  await db.deleteFrom("job_schedules").where("name", "=", name).execute();
}

/**
 * The first run time on the schedule's grid after `now`: a schedule that fell
 * behind (the servers were down) runs once, not once per missed interval.
 */
export function nextRunAfter(previous: string, everyMs: number, now: Date): string {
  const from = Date.parse(previous);
  const steps = Math.max(1, Math.floor((now.getTime() - from) / everyMs) + 1);
  return new Date(from + steps * everyMs).toISOString();
}

/**
 * Enqueues one run of every schedule that is due. Each schedule is advanced
 * by a compare-and-set on its `next_run_at`, in the transaction that enqueues
 * the run: of several processes that see it due, exactly one advances it and
 * enqueues, and a crash in between leaves neither done. Returns the queues
 * that got a job.
 */
export async function runDueSchedules(
  store: QueueStore,
  now: Date,
  enqueue: (trx: Kysely<Database>, schedule: JobScheduleRow) => Promise<void>,
): Promise<string[]> {
  const due = await store.db
    .selectFrom("job_schedules")
    .selectAll()
    .where("next_run_at", "<=", now.toISOString())
    .orderBy("next_run_at")
    .limit(DUE_BATCH)
    .execute();
  const queues: string[] = [];
  for (const schedule of due) {
    const everyMs = Number(schedule.every_ms);
    const taken = await store.transaction(async (trx) => {
      const result = await trx
        .updateTable("job_schedules")
        .set({ next_run_at: nextRunAfter(schedule.next_run_at, everyMs, now) })
        .where("name", "=", schedule.name)
        .where("next_run_at", "=", schedule.next_run_at)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) !== 1) return false;
      await enqueue(trx, schedule);
      return true;
    });
    if (taken) queues.push(schedule.queue);
  }
  return queues;
}
