import { type ExpressionBuilder, type ExpressionWrapper, type SqlBool, sql } from "kysely";
import type { JobRecord, JobStatus } from "../../ports/queue.js";
import type { Database, JobRow } from "../../ports/storage-schema.js";
import { jobStatusOf } from "./job-status.js";

/** A payload as stored: JSON text. `undefined` (which JSON cannot say) is stored as null. */
export function serializePayload(payload: unknown): string {
  return JSON.stringify(payload) ?? "null";
}

export type ParsedPayload = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/** Reads a stored payload; a row written by hand or by an older version may hold text that does not parse. */
export function parsePayload(text: string): ParsedPayload {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A job row as the jobs API shows it, its status derived at `now`. */
export function toJobRecord(row: JobRow, now: Date): JobRecord {
  const parsed = parsePayload(row.payload);
  const tries = Number(row.tries);
  return {
    id: row.id,
    queue: row.queue,
    status: jobStatusOf(row.state, tries, row.run_at, now),
    payload: parsed.ok ? parsed.value : null,
    rawPayload: row.payload,
    tries,
    maxAttempts: Number(row.max_attempts),
    runAt: row.run_at,
    createdAt: row.created_at,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    lastError: row.last_error,
    deduplicationKey: row.deduplication_key,
    orderingKey: row.ordering_key,
  };
}

/**
 * The rows of one API status, as a condition on `jobs`: the stored state,
 * refined for waiting jobs by tries and run time (see `jobStatusOf`).
 */
export function statusCondition(
  eb: ExpressionBuilder<Database, "jobs">,
  status: JobStatus,
  now: string,
): ExpressionWrapper<Database, "jobs", SqlBool> {
  switch (status) {
    case "submitted":
      return eb.and([eb("state", "=", "waiting"), eb("tries", "=", 0), eb("run_at", "<=", now)]);
    case "schedule":
      return eb.and([eb("state", "=", "waiting"), eb("tries", "=", 0), eb("run_at", ">", now)]);
    case "retries":
      return eb.and([eb("state", "=", "waiting"), eb("tries", ">", 0)]);
    default:
      return eb.and([eb("state", "=", status)]);
  }
}

/** The SQL expression of a job's API status, for counting by status in one query. */
export function statusExpression(now: string): ReturnType<typeof sql<string>> {
  return sql<string>`CASE WHEN state <> 'waiting' THEN state WHEN tries > 0 THEN 'retries' WHEN run_at > ${now} THEN 'schedule' ELSE 'submitted' END`;
}

/** Text of an error for `last_error`: the stack when there is one (it starts with the message), bounded. */
/** An error's name and message, without its stack: what a log line needs. */
export function errorMessageOf(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.length > 1_000 ? `${text.slice(0, 1_000)}…` : text;
}

export function describeError(error: unknown): string {
  const text = error instanceof Error ? (error.stack ?? `${error.name}: ${error.message}`) : String(error);
  return text.length > 8_000 ? `${text.slice(0, 8_000)}…` : text;
}

/** The name of the unique index that keeps one waiting job per (queue, deduplication key). */
const DEDUPLICATION_INDEX = "jobs_waiting_deduplication_key_idx";

/**
 * The deduplication index refused a write: a job went back to waiting while
 * another with its key was enqueued. PostgreSQL names the index; SQLite names
 * the columns.
 */
export function isDeduplicationConflict(error: unknown): boolean {
  const { code, constraint, message } = (error ?? {}) as { code?: unknown; constraint?: unknown; message?: unknown };
  if (code === "23505") return constraint === DEDUPLICATION_INDEX;
  return code === "SQLITE_CONSTRAINT_UNIQUE" && typeof message === "string" && message.includes("jobs.deduplication_key");
}
