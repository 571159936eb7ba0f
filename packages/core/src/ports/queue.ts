import type { StorageTransaction } from "./storage.js";

/**
 * The job queue port. Jobs are JSON payloads on named queues, worked by one
 * handler per queue. Adapters: the in-memory reference (tests), the durable
 * SQL queue (the embedded default: rows in the database), and Redis (BullMQ)
 * for many worker processes. Every adapter also answers the admin operations
 * the jobs API needs, and passes the contract suite in `@kith/core/testing`.
 */

/**
 * Where a job stands, as the jobs API names it:
 * - `submitted`: ready to run;
 * - `schedule`: waiting for its time (delayed, or the next run of a repeating job);
 * - `retries`: waiting to run again after a failed attempt;
 * - `active`: held by a worker now;
 * - `finished`: done;
 * - `failed`: out of tries;
 * - `dlq`: dead letter, its payload could not be read; never retried by itself.
 */
export const JOB_STATUSES = ["submitted", "schedule", "retries", "active", "finished", "failed", "dlq"] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export interface BackoffOptions {
  /** Delay after the first failed attempt; doubles with each further one, with jitter. @default 1000 */
  readonly baseMs?: number;
  /** Longest delay between attempts. @default 3_600_000 */
  readonly maxMs?: number;
}

export interface EnqueueOptions {
  /** Milliseconds to wait before the job may run. @default 0 */
  readonly delayMs?: number;
  /** Attempts before the job is failed. @default the queue's configured max retries + 1 */
  readonly maxAttempts?: number;
  readonly backoff?: BackoffOptions;
  /** While a job with this key waits on the queue, enqueueing another with the same key returns the waiting one. */
  readonly deduplicationKey?: string;
  /** Jobs with the same ordering key run one at a time, in enqueue order. */
  readonly orderingKey?: string;
  /**
   * The transaction of the change that causes the job, as the storage handed
   * it out: the job is written in it, so it exists exactly when the change was
   * committed. A queue that keeps its jobs elsewhere writes them to an outbox
   * in it; the queue port itself does not look inside.
   */
  readonly db?: StorageTransaction;
}

export interface EnqueuedJob {
  readonly id: string;
  readonly queue: string;
}

export interface JobContext {
  readonly id: string;
  readonly queue: string;
  /** 1 on the first run. */
  readonly attempt: number;
  /** Aborted when the worker is stopping. */
  readonly signal: AbortSignal;
}

/**
 * Runs one attempt of a job. A handler that throws fails the attempt, which is retried with backoff until the job's
 * attempts run out; but one that throws a `KithError` with the code `job.not_ready` (see `jobNotReady`) says this
 * process cannot run the job yet (a part it needs is still loading): the job waits a moment and runs again, and the
 * attempt does not count. So does a failure the storage says is the database's unavailability
 * (`Storage.isUnavailable`). See `platform/queue/not-ready.ts`.
 */
export type JobHandler = (payload: unknown, context: JobContext) => Promise<void>;

export interface HandlerOptions {
  /** Jobs of this queue worked at once in one process, until an administrator changes it. @default 1 */
  readonly concurrency?: number;
  /** Shown in the jobs API. */
  readonly description?: string;
  /** Retries after the first attempt, until an administrator changes it. @default 4 */
  readonly maxRetries?: number;
}

/** A job runs every `everyMs` milliseconds for as long as its schedule exists. */
export interface RepeatingJob {
  /** Unique; scheduling the same name again replaces the schedule. */
  readonly name: string;
  readonly queue: string;
  readonly everyMs: number;
  readonly payload: unknown;
}

export interface JobRecord {
  readonly id: string;
  readonly queue: string;
  readonly status: JobStatus;
  /** The payload, or null when it cannot be read (then see `rawPayload`). */
  readonly payload: unknown;
  readonly rawPayload: string;
  /** Attempts made so far. */
  readonly tries: number;
  readonly maxAttempts: number;
  readonly runAt: string;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly lastError: string | null;
  readonly deduplicationKey: string | null;
  readonly orderingKey: string | null;
}

export interface JobListQuery {
  readonly queue?: string;
  readonly status?: JobStatus;
  readonly limit: number;
  /** Jobs with ids below this (newest first, as ids are time-ordered). */
  readonly maxId?: string;
}

export type JobCounts = Readonly<Record<JobStatus, number>>;

export interface DailyJobStats {
  /** `YYYY-MM-DD`, UTC. */
  readonly day: string;
  readonly finished: number;
  readonly failed: number;
}

export interface QueueConfig {
  readonly name: string;
  readonly description: string;
  readonly maxRetries: number;
  readonly concurrency: number;
  readonly enabled: boolean;
}

export type QueueConfigChanges = Partial<Omit<QueueConfig, "name">>;

export interface WorkerProcess {
  readonly id: string;
  readonly hostname: string;
  readonly pid: number;
  readonly startedAt: string;
  readonly lastHeartbeatAt: string;
}

export type QueueBackendInfo =
  | { readonly kind: "redis"; readonly version: string; readonly usedMemoryBytes: number; readonly connectedClients: number }
  | { readonly kind: "embedded"; readonly engine: string; readonly version: string; readonly sizeBytes: number | null };

export interface Queue {
  /** Stores a job; once this resolves (or the given transaction commits), the job is not lost. */
  enqueue(queue: string, payload: unknown, options?: EnqueueOptions): Promise<EnqueuedJob>;
  /** Stores several jobs of the same options at once (in one statement where the backend can), in the order given; as `enqueue` for each otherwise. */
  enqueueMany?(queue: string, payloads: readonly unknown[], options?: EnqueueOptions): Promise<EnqueuedJob[]>;
  /** Sets the one handler of a queue. */
  handle(queue: string, handler: JobHandler, options?: HandlerOptions): void;
  /** Creates or replaces a repeating job. */
  schedule(job: RepeatingJob): Promise<void>;
  /** Removes a repeating job's schedule; no error when there is none. */
  unschedule(name: string): Promise<void>;
  /** Starts working jobs in this process and reporting its heartbeat. */
  start(): Promise<void>;
  /** Stops taking jobs and waits for running ones to finish. */
  stop(): Promise<void>;

  /** Jobs, newest first, optionally of one queue and status. */
  list(query: JobListQuery): Promise<JobRecord[]>;
  get(id: string): Promise<JobRecord | null>;
  /** Jobs per status, of one queue or of all. */
  counts(queue?: string): Promise<JobCounts>;
  /** A failed or dead-letter job back to submitted, its tries reset to 0. 404 unknown, 409 in another status. */
  retry(id: string): Promise<JobRecord>;
  /** Every failed job of a queue back to submitted, tries reset; returns how many. */
  retryAll(queue: string): Promise<number>;
  /** Deletes one job. 404 unknown, 409 when active. */
  remove(id: string): Promise<void>;
  /** Deletes every job of a queue in one status; returns how many. 409 for `active`. */
  clear(queue: string, status: JobStatus): Promise<number>;
  /** Finished and failed jobs per day for the last `days` days (today included), oldest first. */
  statsPerDay(days: number, queue?: string): Promise<DailyJobStats[]>;
  /** The configuration of every known queue. */
  queues(): Promise<QueueConfig[]>;
  /** Changes a queue's configuration; workers apply it without a restart. 404 unknown queue. */
  configureQueue(name: string, changes: QueueConfigChanges): Promise<QueueConfig>;
  /** Worker processes that reported a heartbeat recently. */
  processes(): Promise<WorkerProcess[]>;
  /** The store behind the queue. */
  backendInfo(): Promise<QueueBackendInfo>;
}
