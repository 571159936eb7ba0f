/**
 * The job queue port. Jobs are JSON payloads on named queues, worked by one
 * handler per queue. The embedded default keeps jobs in the SQL database; the
 * in-memory adapter is the reference for tests; a Redis adapter scales out.
 * The admin operations (lists, counts, retry, clear) arrive with the jobs API.
 */

export interface EnqueueOptions {
  /** Milliseconds to wait before the job may run. @default 0 */
  readonly delayMs?: number;
  /** Attempts before the job is failed. @default 5 */
  readonly maxAttempts?: number;
  /** While a job with this key is waiting, enqueueing another with the same key returns the first. */
  readonly deduplicationKey?: string;
  /** Jobs with the same ordering key run one at a time, in enqueue order. */
  readonly orderingKey?: string;
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

export type JobHandler = (payload: unknown, context: JobContext) => Promise<void>;

export interface HandlerOptions {
  /** Jobs of this queue worked at once in one process. @default 1 */
  readonly concurrency?: number;
}

export interface Queue {
  /** Stores a job; once this resolves, the job is not lost. */
  enqueue(queue: string, payload: unknown, options?: EnqueueOptions): Promise<EnqueuedJob>;
  /** Sets the one handler of a queue. */
  handle(queue: string, handler: JobHandler, options?: HandlerOptions): void;
  /** Starts working jobs in this process. */
  start(): Promise<void>;
  /** Stops taking jobs and waits for running ones to finish. */
  stop(): Promise<void>;
}
