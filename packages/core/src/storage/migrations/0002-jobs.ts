import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0002: the durable job queue (core's `queue/sql-queue.ts`): jobs,
 * per-queue settings, repeating schedules, worker heartbeats, daily counts,
 * and the outbox the Redis queue adapter relays from. A job's payload is
 * text, not JSON: a dead-letter payload may be text that does not parse, and
 * must be kept as it came.
 */
const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const int: ColumnSpec = { type: "int" };
const zero: ColumnSpec = { type: "int", default: 0 };

export const jobsMigration: MigrationSpec = {
  name: "0002_jobs",
  tables: [
    {
      name: "jobs",
      columns: {
        id: text,
        queue: text,
        state: text,
        payload: text,
        tries: zero,
        max_attempts: int,
        backoff_base_ms: { type: "bigint" },
        backoff_max_ms: { type: "bigint" },
        run_at: at,
        deduplication_key: optionalText,
        ordering_key: optionalText,
        locked_by: optionalText,
        locked_until: optionalAt,
        last_error: optionalText,
        created_at: at,
        started_at: optionalAt,
        finished_at: optionalAt,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        // Polling: the runnable jobs of one queue, by time; also the per-queue admin lists and counts.
        { name: "jobs_queue_state_run_at_idx", columns: ["queue", "state", "run_at"] },
        // Expired leases (state 'active', locked_until passed), and lists by status across queues.
        { name: "jobs_state_locked_until_idx", columns: ["state", "locked_until"] },
        // Ordering keys: is a job of this key active, or an older one waiting?
        { name: "jobs_ordering_key_idx", columns: ["queue", "ordering_key", "state", "id"], where: "ordering_key IS NOT NULL" },
        // At most one waiting job per deduplication key, so concurrent enqueues cannot both insert one.
        {
          name: "jobs_waiting_deduplication_key_idx",
          columns: ["queue", "deduplication_key"],
          unique: true,
          where: "state = 'waiting' AND deduplication_key IS NOT NULL",
        },
      ],
    },
    {
      name: "job_queues",
      columns: {
        name: text,
        description: { type: "text", default: "" },
        max_retries: int,
        concurrency: int,
        enabled: { type: "bool", default: true },
        updated_at: at,
      },
      primaryKey: ["name"],
    },
    {
      name: "job_schedules",
      columns: { name: text, queue: text, every_ms: { type: "bigint" }, payload: { type: "json" }, next_run_at: at, updated_at: at },
      primaryKey: ["name"],
      indexes: [{ name: "job_schedules_next_run_at_idx", columns: ["next_run_at"] }],
    },
    {
      name: "job_processes",
      columns: { id: text, hostname: text, pid: int, started_at: at, last_heartbeat_at: at },
      primaryKey: ["id"],
    },
    {
      name: "job_daily_stats",
      columns: { day: text, queue: text, finished: zero, failed: zero },
      primaryKey: ["day", "queue"],
    },
    {
      name: "job_outbox",
      columns: { id: text, queue: text, payload: text, options: text, created_at: at },
      primaryKey: ["id"],
    },
  ],
};
