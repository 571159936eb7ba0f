import { hostname } from "node:os";
import { KithError, isKithError } from "../domain/errors.js";
import { getLogger } from "../logging.js";
import { PendingWork } from "../pending-work.js";
import { afterCommit } from "../platform/storage/commit-hooks.js";
import type { Clock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/ids.js";
import type {
  BackoffOptions,
  DailyJobStats,
  EnqueueOptions,
  EnqueuedJob,
  HandlerOptions,
  JobCounts,
  JobHandler,
  JobListQuery,
  JobRecord,
  JobStatus,
  Queue,
  QueueBackendInfo,
  QueueConfig,
  QueueConfigChanges,
  RepeatingJob,
  WorkerProcess,
} from "../ports/queue.js";
import { backoffDelayMs } from "../platform/queue/backoff.js";
import { emptyJobCounts, jobStatusOf } from "../platform/queue/job-status.js";
import type { StoredJobState } from "../ports/storage-schema.js";
import { NOT_READY_DELAY_MS, cannotRunYet } from "../platform/queue/not-ready.js";

export { backoffDelayMs } from "../platform/queue/backoff.js";

const DAY_MS = 86_400_000;
/** Retries after the first attempt when neither the job nor the queue's handler says. */
const DEFAULT_MAX_RETRIES = 4;
/** Finished jobs kept for the jobs API; the oldest are dropped beyond this many. */
const KEEP_FINISHED = 10_000;

interface MemoryJob {
  readonly id: string;
  readonly queue: string;
  readonly rawPayload: string;
  /** As given at enqueue; null means "the queue's max retries + 1", read when needed. */
  readonly maxAttempts: number | null;
  readonly backoff: BackoffOptions | undefined;
  readonly deduplicationKey: string | null;
  readonly orderingKey: string | null;
  /** The schedule a repeating job's run belongs to. */
  readonly repeat: string | null;
  readonly createdAt: number;
  state: StoredJobState;
  tries: number;
  runAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  lastError: string | null;
}

interface Schedule {
  readonly job: RepeatingJob;
  /** When the last run that was taken was due; null before the first. */
  lastRunAt: number | null;
}

interface QueueEntry {
  config: QueueConfig;
  handler: JobHandler | null;
  /** An administrator changed the configuration: later `handle` calls keep those values. */
  edited: boolean;
  running: number;
}

export interface MemoryQueueOptions {
  readonly clock: Clock;
  readonly ids: IdGenerator;
  /** How often due jobs are looked for. @default 50 */
  readonly pollIntervalMs?: number;
}

let instances = 0;

/**
 * The in-memory reference adapter of the queue port: every operation of the
 * port, worked in this process. Jobs live in this object only, so it is NOT
 * durable: a crash or restart loses queued work. A job enqueued with the
 * `db` option of a storage's transaction is added when that transaction
 * commits, and not at all when it rolls back (a transaction that does not
 * tell its commit, as a storage of another kind's, adds it at once). Use it in tests and in embeddings that accept that; the
 * server uses the SQL queue or Redis.
 *
 * Time comes from the clock port: with a fake clock, delayed jobs, retries
 * and repeating jobs wait until the clock is moved. Repeating jobs appear as
 * one `schedule` job for their next run. Finished and failed jobs are
 * counted per UTC day of the clock as they end (dead letters count as
 * failed); the counts outlive deleted jobs.
 */
export class MemoryQueue implements Queue {
  readonly #clock: Clock;
  readonly #ids: IdGenerator;
  readonly #pollIntervalMs: number;
  readonly #logger = getLogger(["queue", "memory"]);
  readonly #jobs: MemoryJob[] = [];
  readonly #queues = new Map<string, QueueEntry>();
  readonly #schedules = new Map<string, Schedule>();
  /** `day|queue` -> counts of jobs that ended that day. */
  readonly #daily = new Map<string, { finished: number; failed: number }>();
  readonly #running = new PendingWork();
  readonly #processId: string;
  #process: { startedAt: number; lastHeartbeatAt: number } | null = null;
  #abort = new AbortController();
  #timer: ReturnType<typeof setInterval> | undefined;
  #pollQueued = false;

  constructor(options: MemoryQueueOptions) {
    this.#clock = options.clock;
    this.#ids = options.ids;
    this.#pollIntervalMs = options.pollIntervalMs ?? 50;
    instances += 1;
    this.#processId = `${hostname()}:${process.pid}:memory-${instances}`;
  }

  async enqueue(queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<EnqueuedJob> {
    if (options.db !== undefined) {
      // A job of a transaction appears once it commits, never after a rollback: run before the commit, its
      // handler would not see the change that caused it. (Deduplicated then, it is the waiting job that stays.)
      const id = this.#ids.next("job");
      if (afterCommit(options.db, () => this.#add(queue, payload, options, null, id))) return { id, queue };
    }
    return this.#add(queue, payload, options, null);
  }

  handle(queue: string, handler: JobHandler, options: HandlerOptions = {}): void {
    const entry = this.#entry(queue);
    entry.handler = handler;
    if (!entry.edited) {
      entry.config = {
        name: queue,
        description: options.description ?? "",
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        concurrency: Math.max(1, options.concurrency ?? 1),
        enabled: true,
      };
    }
    this.#wake();
  }

  async schedule(job: RepeatingJob): Promise<void> {
    if (!(job.everyMs > 0)) throw new RangeError(`A repeating job needs a positive everyMs (got ${job.everyMs})`);
    this.#removeWhere((entry) => entry.repeat === job.name && entry.state === "waiting");
    this.#schedules.set(job.name, { job: { ...job }, lastRunAt: null });
    this.#entry(job.queue);
    this.#ensureRepeats(this.#clock.now().getTime());
  }

  async unschedule(name: string): Promise<void> {
    this.#schedules.delete(name);
    this.#removeWhere((entry) => entry.repeat === name && entry.state === "waiting");
  }

  async start(): Promise<void> {
    if (this.#timer) return;
    if (this.#abort.signal.aborted) this.#abort = new AbortController();
    const now = this.#clock.now().getTime();
    this.#process = { startedAt: now, lastHeartbeatAt: now };
    this.#timer = setInterval(() => this.#poll(), this.#pollIntervalMs);
    this.#timer.unref?.();
    this.#poll();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#process = null;
    this.#abort.abort();
    await this.#running.settled();
  }

  async list(query: JobListQuery): Promise<JobRecord[]> {
    const now = this.#clock.now();
    const found: JobRecord[] = [];
    for (const job of [...this.#jobs].sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))) {
      if (found.length >= query.limit) break;
      if (query.queue !== undefined && job.queue !== query.queue) continue;
      if (query.maxId !== undefined && job.id >= query.maxId) continue;
      if (query.status !== undefined && this.#statusOf(job, now) !== query.status) continue;
      found.push(this.#record(job, now));
    }
    return found;
  }

  async get(id: string): Promise<JobRecord | null> {
    const job = this.#find(id);
    return job ? this.#record(job, this.#clock.now()) : null;
  }

  async counts(queue?: string): Promise<JobCounts> {
    const now = this.#clock.now();
    const counts = emptyJobCounts();
    for (const job of this.#jobs) {
      if (queue === undefined || job.queue === queue) counts[this.#statusOf(job, now)] += 1;
    }
    return counts;
  }

  async retry(id: string): Promise<JobRecord> {
    const job = this.#find(id);
    if (!job) throw new KithError("job.not_found");
    if (job.state !== "failed" && job.state !== "dlq") throw new KithError("job.not_retryable");
    this.#resubmit(job);
    const record = this.#record(job, this.#clock.now());
    this.#wake();
    return record;
  }

  async retryAll(queue: string): Promise<number> {
    let moved = 0;
    for (const job of this.#jobs) {
      if (job.queue !== queue || job.state !== "failed") continue;
      this.#resubmit(job);
      moved += 1;
    }
    if (moved > 0) this.#wake();
    return moved;
  }

  async remove(id: string): Promise<void> {
    const index = this.#jobs.findIndex((job) => job.id === id);
    const job = this.#jobs[index];
    if (!job) throw new KithError("job.not_found");
    if (job.state === "active") throw new KithError("job.active");
    this.#jobs.splice(index, 1);
  }

  async clear(queue: string, status: JobStatus): Promise<number> {
    if (status === "active") throw new KithError("job.active");
    const now = this.#clock.now();
    return this.#removeWhere((job) => job.queue === queue && this.#statusOf(job, now) === status);
  }

  async statsPerDay(days: number, queue?: string): Promise<DailyJobStats[]> {
    const today = Math.floor(this.#clock.now().getTime() / DAY_MS) * DAY_MS;
    const stats: DailyJobStats[] = [];
    for (let back = Math.max(0, Math.trunc(days) - 1); back >= 0; back--) {
      const day = new Date(today - back * DAY_MS).toISOString().slice(0, 10);
      let finished = 0;
      let failed = 0;
      for (const [key, counts] of this.#daily) {
        const [keyDay, keyQueue] = splitDailyKey(key);
        if (keyDay !== day || (queue !== undefined && keyQueue !== queue)) continue;
        finished += counts.finished;
        failed += counts.failed;
      }
      stats.push({ day, finished, failed });
    }
    return stats;
  }

  async queues(): Promise<QueueConfig[]> {
    return [...this.#queues.values()].map((entry) => ({ ...entry.config })).sort((a, b) => a.name.localeCompare(b.name));
  }

  async configureQueue(name: string, changes: QueueConfigChanges): Promise<QueueConfig> {
    const entry = this.#queues.get(name);
    if (!entry) throw new KithError("queue.not_found");
    const defined = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) as QueueConfigChanges;
    entry.config = { ...entry.config, ...defined, name };
    entry.edited = true;
    this.#wake();
    return { ...entry.config };
  }

  async processes(): Promise<WorkerProcess[]> {
    if (!this.#process) return [];
    return [
      {
        id: this.#processId,
        hostname: hostname(),
        pid: process.pid,
        startedAt: new Date(this.#process.startedAt).toISOString(),
        lastHeartbeatAt: new Date(this.#process.lastHeartbeatAt).toISOString(),
      },
    ];
  }

  async backendInfo(): Promise<QueueBackendInfo> {
    return { kind: "embedded", engine: "memory", version: process.version, sizeBytes: null };
  }

  #add(queue: string, payload: unknown, options: EnqueueOptions, repeat: string | null, id = this.#ids.next("job")): EnqueuedJob {
    const now = this.#clock.now().getTime();
    if (options.deduplicationKey !== undefined) {
      const waiting = this.#jobs.find(
        (job) => job.queue === queue && job.state === "waiting" && job.deduplicationKey === options.deduplicationKey,
      );
      if (waiting) return { id: waiting.id, queue };
    }
    const job: MemoryJob = {
      id,
      queue,
      rawPayload: serialize(payload),
      maxAttempts: options.maxAttempts === undefined ? null : Math.max(1, Math.trunc(options.maxAttempts)),
      backoff: options.backoff,
      deduplicationKey: options.deduplicationKey ?? null,
      orderingKey: options.orderingKey ?? null,
      repeat,
      createdAt: now,
      state: "waiting",
      tries: 0,
      runAt: now + Math.max(0, options.delayMs ?? 0),
      startedAt: null,
      finishedAt: null,
      lastError: null,
    };
    this.#jobs.push(job);
    this.#entry(queue);
    this.#wake();
    return { id: job.id, queue };
  }

  /** The queue's entry, made with default configuration when the queue is first seen. */
  #entry(queue: string): QueueEntry {
    let entry = this.#queues.get(queue);
    if (!entry) {
      entry = {
        config: { name: queue, description: "", maxRetries: DEFAULT_MAX_RETRIES, concurrency: 1, enabled: true },
        handler: null,
        edited: false,
        running: 0,
      };
      this.#queues.set(queue, entry);
    }
    return entry;
  }

  #find(id: string): MemoryJob | undefined {
    return this.#jobs.find((job) => job.id === id);
  }

  #maxAttemptsOf(job: MemoryJob): number {
    return job.maxAttempts ?? (this.#queues.get(job.queue)?.config.maxRetries ?? DEFAULT_MAX_RETRIES) + 1;
  }

  #statusOf(job: MemoryJob, now: Date): JobStatus {
    return jobStatusOf(job.state, job.tries, new Date(job.runAt).toISOString(), now);
  }

  #record(job: MemoryJob, now: Date): JobRecord {
    let payload: unknown = null;
    try {
      payload = JSON.parse(job.rawPayload);
    } catch {
      payload = null;
    }
    return {
      id: job.id,
      queue: job.queue,
      status: this.#statusOf(job, now),
      payload,
      rawPayload: job.rawPayload,
      tries: job.tries,
      maxAttempts: this.#maxAttemptsOf(job),
      runAt: new Date(job.runAt).toISOString(),
      createdAt: new Date(job.createdAt).toISOString(),
      startedAt: job.startedAt === null ? null : new Date(job.startedAt).toISOString(),
      finishedAt: job.finishedAt === null ? null : new Date(job.finishedAt).toISOString(),
      lastError: job.lastError,
      deduplicationKey: job.deduplicationKey,
      orderingKey: job.orderingKey,
    };
  }

  #resubmit(job: MemoryJob): void {
    job.state = "waiting";
    job.tries = 0;
    job.runAt = this.#clock.now().getTime();
    job.finishedAt = null;
  }

  /** Removes the jobs that match (never active ones); returns how many. */
  #removeWhere(matches: (job: MemoryJob) => boolean): number {
    let removed = 0;
    for (let index = this.#jobs.length - 1; index >= 0; index--) {
      const job = this.#jobs[index];
      if (job && job.state !== "active" && matches(job)) {
        this.#jobs.splice(index, 1);
        removed += 1;
      }
    }
    return removed;
  }

  /** Every schedule has its next run waiting as a job. */
  #ensureRepeats(now: number): void {
    for (const [name, schedule] of this.#schedules) {
      if (this.#jobs.some((job) => job.repeat === name && job.state === "waiting")) continue;
      const due = schedule.lastRunAt === null ? now + schedule.job.everyMs : Math.max(now, schedule.lastRunAt + schedule.job.everyMs);
      this.#add(schedule.job.queue, schedule.job.payload, { delayMs: due - now }, name);
    }
  }

  /** Looks for work soon, once, when started. */
  #wake(): void {
    if (!this.#timer || this.#pollQueued) return;
    this.#pollQueued = true;
    queueMicrotask(() => {
      this.#pollQueued = false;
      this.#poll();
    });
  }

  #poll(): void {
    if (!this.#timer) return;
    try {
      const now = this.#clock.now().getTime();
      if (this.#process) this.#process.lastHeartbeatAt = now;
      this.#ensureRepeats(now);
      for (const entry of this.#queues.values()) {
        const handler = entry.handler;
        if (!handler || !entry.config.enabled) continue;
        while (entry.running < entry.config.concurrency) {
          const job = this.#nextRunnable(entry.config.name, now);
          if (!job) break;
          this.#take(job, entry, handler, now);
        }
      }
    } catch (error) {
      this.#logger.warn("Polling the memory queue failed; trying again: {error}", { error });
    }
  }

  #nextRunnable(queue: string, now: number): MemoryJob | undefined {
    const blockedKeys = new Set<string>();
    for (const job of this.#jobs) {
      if (job.queue === queue && job.state === "active" && job.orderingKey !== null) blockedKeys.add(job.orderingKey);
    }
    for (const job of this.#jobs) {
      if (job.queue !== queue || job.state !== "waiting") continue;
      if (job.orderingKey !== null) {
        // Only the oldest waiting job of an ordering key may run, and only while none of that key is active.
        if (blockedKeys.has(job.orderingKey)) continue;
        blockedKeys.add(job.orderingKey);
      }
      if (job.runAt <= now) return job;
    }
    return undefined;
  }

  #take(job: MemoryJob, entry: QueueEntry, handler: JobHandler, now: number): void {
    job.state = "active";
    job.tries += 1;
    job.startedAt = now;
    if (job.repeat !== null) {
      const schedule = this.#schedules.get(job.repeat);
      if (schedule) schedule.lastRunAt = job.runAt;
    }
    entry.running += 1;
    const run = this.#run(job, handler)
      .catch((error: unknown) => this.#logger.error("Recording the end of job {id} failed: {error}", { id: job.id, error }))
      .finally(() => {
        entry.running -= 1;
        this.#wake();
      });
    this.#running.track(run);
  }

  async #run(job: MemoryJob, handler: JobHandler): Promise<void> {
    const context = { id: job.id, queue: job.queue, attempt: job.tries, signal: this.#abort.signal };
    try {
      let payload: unknown;
      try {
        payload = JSON.parse(job.rawPayload);
      } catch (cause) {
        throw new KithError("job.unreadable_payload", { cause });
      }
      await handler(payload, context);
      this.#end(job, "finished", null);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (cannotRunYet(error)) {
        // Not the job's fault: given back, the attempt uncounted.
        job.state = "waiting";
        job.tries -= 1;
        job.runAt = this.#clock.now().getTime() + NOT_READY_DELAY_MS;
      } else if (isKithError(error) && error.code === "job.unreadable_payload") {
        this.#logger.warn("Job {id} on {queue} has a payload its handler cannot read; dead letter: {error}", {
          id: job.id,
          queue: job.queue,
          error,
        });
        this.#end(job, "dlq", message);
      } else if (job.tries >= this.#maxAttemptsOf(job)) {
        this.#logger.warn("Job {id} on {queue} failed for good after {tries} tries: {error}", {
          id: job.id,
          queue: job.queue,
          tries: job.tries,
          error,
        });
        this.#end(job, "failed", message);
      } else {
        job.state = "waiting";
        job.lastError = message;
        job.runAt = this.#clock.now().getTime() + backoffDelayMs(job.tries, job.backoff);
      }
    }
  }

  #end(job: MemoryJob, state: "finished" | "failed" | "dlq", error: string | null): void {
    const now = this.#clock.now().getTime();
    job.state = state;
    job.finishedAt = now;
    if (error !== null) job.lastError = error;
    const key = dailyKey(new Date(now).toISOString().slice(0, 10), job.queue);
    const counts = this.#daily.get(key) ?? { finished: 0, failed: 0 };
    if (state === "finished") counts.finished += 1;
    else counts.failed += 1;
    this.#daily.set(key, counts);
    if (state === "finished") this.#dropOldFinished();
  }

  #dropOldFinished(): void {
    let finished = 0;
    for (const job of this.#jobs) if (job.state === "finished") finished += 1;
    if (finished <= KEEP_FINISHED) return;
    const oldest = this.#jobs.findIndex((job) => job.state === "finished");
    if (oldest >= 0) this.#jobs.splice(oldest, 1);
  }
}

function serialize(payload: unknown): string {
  let raw: string | undefined;
  try {
    raw = JSON.stringify(payload ?? null);
  } catch (cause) {
    throw new KithError("job.unreadable_payload", { message: "A job's payload must be JSON", cause });
  }
  if (raw === undefined) throw new KithError("job.unreadable_payload", { message: "A job's payload must be JSON" });
  return raw;
}

function dailyKey(day: string, queue: string): string {
  return `${day}|${queue}`;
}

function splitDailyKey(key: string): [string, string] {
  const bar = key.indexOf("|");
  return [key.slice(0, bar), key.slice(bar + 1)];
}
