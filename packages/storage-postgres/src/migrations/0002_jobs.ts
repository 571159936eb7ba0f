import { type Kysely, sql } from "kysely";

/**
 * The durable job queue (core's `queue/sql-queue.ts`): jobs, per-queue
 * settings, repeating schedules, worker heartbeats, daily counts, and the
 * outbox the Redis queue adapter relays from. A job's payload is text, not
 * jsonb: a dead-letter payload may be text that does not parse, and must be
 * kept as it came. Keep in step with the SQLite migration of the same number:
 * a test compares the two schemas.
 */
const statements = [
  `CREATE TABLE jobs (
    id text PRIMARY KEY NOT NULL,
    queue text NOT NULL,
    state text NOT NULL,
    payload text NOT NULL,
    tries integer NOT NULL DEFAULT 0,
    max_attempts integer NOT NULL,
    backoff_base_ms bigint NOT NULL,
    backoff_max_ms bigint NOT NULL,
    run_at timestamptz NOT NULL,
    deduplication_key text,
    ordering_key text,
    locked_by text,
    locked_until timestamptz,
    last_error text,
    created_at timestamptz NOT NULL,
    started_at timestamptz,
    finished_at timestamptz,
    updated_at timestamptz NOT NULL
  )`,
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
    name text PRIMARY KEY NOT NULL,
    description text NOT NULL DEFAULT '',
    max_retries integer NOT NULL,
    concurrency integer NOT NULL,
    enabled boolean NOT NULL DEFAULT true,
    updated_at timestamptz NOT NULL
  )`,
  `CREATE TABLE job_schedules (
    name text PRIMARY KEY NOT NULL,
    queue text NOT NULL,
    every_ms bigint NOT NULL,
    payload jsonb NOT NULL,
    next_run_at timestamptz NOT NULL,
    updated_at timestamptz NOT NULL
  )`,
  "CREATE INDEX job_schedules_next_run_at_idx ON job_schedules (next_run_at)",
  `CREATE TABLE job_processes (
    id text PRIMARY KEY NOT NULL,
    hostname text NOT NULL,
    pid integer NOT NULL,
    started_at timestamptz NOT NULL,
    last_heartbeat_at timestamptz NOT NULL
  )`,
  `CREATE TABLE job_daily_stats (
    day text NOT NULL,
    queue text NOT NULL,
    finished integer NOT NULL DEFAULT 0,
    failed integer NOT NULL DEFAULT 0,
    PRIMARY KEY (day, queue)
  )`,
  `CREATE TABLE job_outbox (
    id text PRIMARY KEY NOT NULL,
    queue text NOT NULL,
    payload text NOT NULL,
    options text NOT NULL,
    created_at timestamptz NOT NULL
  )`,
];

// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) await sql.raw(statement).execute(db);
}
