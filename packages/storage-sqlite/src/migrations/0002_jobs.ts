import { type Kysely, sql } from "kysely";

/**
 * The durable job queue (core's `queue/sql-queue.ts`): jobs, per-queue
 * settings, repeating schedules, worker heartbeats, daily counts, and the
 * outbox the Redis queue adapter relays from. Keep in step with the
 * PostgreSQL migration of the same number: a test compares the two schemas.
 */
const statements = [
  `CREATE TABLE jobs (
    id TEXT PRIMARY KEY NOT NULL,
    queue TEXT NOT NULL,
    state TEXT NOT NULL,
    payload TEXT NOT NULL,
    tries INTEGER NOT NULL DEFAULT 0,
    max_attempts INTEGER NOT NULL,
    backoff_base_ms INTEGER NOT NULL,
    backoff_max_ms INTEGER NOT NULL,
    run_at TEXT NOT NULL,
    deduplication_key TEXT,
    ordering_key TEXT,
    locked_by TEXT,
    locked_until TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    updated_at TEXT NOT NULL
  ) STRICT`,
  // Polling: the runnable jobs of one queue, by time; also the per-queue admin lists and counts.
  "CREATE INDEX jobs_queue_state_run_at_idx ON jobs (queue, state, run_at)",
  // Expired leases (state 'active', locked_until passed), and lists by status across queues.
  "CREATE INDEX jobs_state_locked_until_idx ON jobs (state, locked_until)",
  // Ordering keys: is a job of this key active, or an older one waiting?
  "CREATE INDEX jobs_ordering_key_idx ON jobs (queue, ordering_key, state, id) WHERE ordering_key IS NOT NULL",
  // At most one waiting job per deduplication key, so concurrent enqueues cannot both insert one.
  `CREATE UNIQUE INDEX jobs_waiting_deduplication_key_idx ON jobs (queue, deduplication_key)
    WHERE state = 'waiting' AND deduplication_key IS NOT NULL`,
  `CREATE TABLE job_queues (
    name TEXT PRIMARY KEY NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    max_retries INTEGER NOT NULL,
    concurrency INTEGER NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1,
    updated_at TEXT NOT NULL
  ) STRICT`,
  `CREATE TABLE job_schedules (
    name TEXT PRIMARY KEY NOT NULL,
    queue TEXT NOT NULL,
    every_ms INTEGER NOT NULL,
    payload TEXT NOT NULL,
    next_run_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  ) STRICT`,
  "CREATE INDEX job_schedules_next_run_at_idx ON job_schedules (next_run_at)",
  `CREATE TABLE job_processes (
    id TEXT PRIMARY KEY NOT NULL,
    hostname TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started_at TEXT NOT NULL,
    last_heartbeat_at TEXT NOT NULL
  ) STRICT`,
  `CREATE TABLE job_daily_stats (
    day TEXT NOT NULL,
    queue TEXT NOT NULL,
    finished INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (day, queue)
  ) STRICT`,
  `CREATE TABLE job_outbox (
    id TEXT PRIMARY KEY NOT NULL,
    queue TEXT NOT NULL,
    payload TEXT NOT NULL,
    options TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT`,
];

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
