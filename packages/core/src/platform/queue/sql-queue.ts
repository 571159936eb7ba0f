import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { KithError } from "../../domain/errors.js";
import { getLogger } from "../../logging.js";
import type { Clock } from "../../ports/clock.js";
import type { IdGenerator } from "../../ports/ids.js";
import type {
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
} from "../../ports/queue.js";
import type { Storage } from "../../ports/storage.js";
import { AttemptFailures } from "./attempt-failures.js";
import { DEFAULT_BACKOFF } from "./backoff.js";
import { ProcessHeartbeat, liveProcesses } from "./heartbeat.js";
import { clearJobs, countJobs, dailyStats, getJob, listJobs, removeJob, retryAllJobs, retryJob } from "./job-admin.js";
import { serializePayload } from "./job-rows.js";
import { type NewJob, type QueueStore, insertJob, insertJobs, reapExpiredLeases, renewLeases } from "./job-transitions.js";
import { pruneFinishedJobs } from "./finished-job-pruning.js";
import { FailureReporter } from "./poll-errors.js";
import { QueueConfigCache, configFromHandler, ensureQueueRow, readQueueConfigs, updateQueueConfig } from "./queue-config.js";
import { RepeatingTask } from "./repeating-task.js";
import { deleteSchedule, runDueSchedules, saveSchedule } from "./scheduler.js";
import { QueueWorker } from "./worker-loop.js";

export interface SqlQueueOptions {
  /** The database the jobs live in; its migrations must have run. */
  readonly storage: Storage;
  readonly ids: IdGenerator;
  /** @default the system clock */
  readonly clock?: Clock;
  /** How often each queue looks for due jobs when nothing wakes it sooner. @default 200 */
  readonly pollIntervalMs?: number;
  /**
   * A queue that keeps finding nothing looks less and less often, down to
   * once in this long; an enqueue in this process (or a job it finishes)
   * brings it back at once, so only jobs written by other processes, and
   * delayed ones coming due, may wait up to this. @default 10 x pollIntervalMs
   */
  readonly idlePollIntervalMs?: number;
  /**
   * How long a claimed job stays reserved for this process without a renewal.
   * Running jobs are renewed every third of it; a job whose lease runs out
   * (its process died or hung) is taken up again by any process. @default 60_000
   */
  readonly leaseMs?: number;
  /**
   * How long a finished job stays listed before it is deleted (failed and dead-lettered jobs stay until an
   * administrator retries or deletes them). @default 7 days
   */
  readonly finishedJobRetentionMs?: number;
  /** How often this process deletes the finished jobs past their retention. @default 600_000 */
  readonly pruneIntervalMs?: number;
  /** How often this process reports that it is alive. @default 10_000 */
  readonly heartbeatIntervalMs?: number;
  /** Names this process in leases and the jobs API; unique per running process. @default `<hostname>/<pid>/<random>` */
  readonly processId?: string;
}

interface Registration {
  handler: JobHandler;
  readonly options: HandlerOptions;
  /** The queue's row is written (or was there); enqueue waits for it so a job takes the queue's max retries. */
  readonly registered: Promise<void>;
  readonly worker: QueueWorker;
}

/**
 * How old this process's copy of the queues' configuration may grow: an administrator's change made in another
 * process applies within it, plus the maintenance's wait while the queues are idle (`idlePollIntervalMs`).
 */
const CONFIG_MAX_AGE_MS = 1_000;
const DAY_MS = 24 * 3_600_000;
/** A process missing this many heartbeats in a row is no longer listed. */
const MISSED_HEARTBEATS = 3;

const systemClock: Clock = { now: () => new Date() };

function checkQueueName(queue: string): void {
  if (typeof queue !== "string" || queue === "") {
    throw new KithError("request.validation_failed", { details: [{ field: "queue", message: "must be non-empty text" }] });
  }
}

function nonNegativeInteger(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isFinite(value) ? Math.max(0, Math.trunc(value)) : fallback;
}

/**
 * The durable embedded queue: jobs are rows of the application's own SQL
 * database (SQLite or PostgreSQL), so a job enqueued in the transaction of
 * the change that causes it exists exactly when that change does, and
 * survives crashes and restarts. Workers in this process poll per queue and
 * run jobs on p-queue; any number of processes may share one PostgreSQL
 * database (claims use SKIP LOCKED, leases hand a dead process's jobs to
 * another). Retries back off exponentially with jitter; a payload that cannot
 * be read goes to the dead-letter list.
 */
export class SqlQueue implements Queue {
  readonly processId: string;
  readonly #storage: Storage;
  readonly #store: QueueStore;
  readonly #ids: IdGenerator;
  readonly #clock: Clock;
  readonly #pollIntervalMs: number;
  readonly #idlePollIntervalMs: number;
  readonly #leaseMs: number;
  readonly #heartbeatIntervalMs: number;
  readonly #finishedJobRetentionMs: number;
  readonly #pruneIntervalMs: number;
  /** When this process last deleted finished jobs past their retention (0: not yet). */
  #prunedAt = 0;
  readonly #logger = getLogger(["queue", "sql"]);
  readonly #failures = new AttemptFailures(this.#logger);
  readonly #queues = new Map<string, Registration>();
  readonly #configs: QueueConfigCache;
  readonly #maintenance: RepeatingTask;
  readonly #maintenanceFailures: FailureReporter;
  readonly #leases: RepeatingTask;
  readonly #leaseFailures: FailureReporter;
  readonly #heartbeat: ProcessHeartbeat;
  #started = false;
  /** The start under way, which stop() waits for. */
  #starting: Promise<void> | undefined;

  constructor(options: SqlQueueOptions) {
    this.#storage = options.storage;
    this.#store = {
      db: options.storage.db,
      transaction: (work) => options.storage.transaction(work),
      capabilities: options.storage.capabilities,
    };
    this.#ids = options.ids;
    this.#clock = options.clock ?? systemClock;
    this.#pollIntervalMs = Math.max(1, options.pollIntervalMs ?? 200);
    this.#idlePollIntervalMs = Math.max(this.#pollIntervalMs, options.idlePollIntervalMs ?? this.#pollIntervalMs * 10);
    this.#leaseMs = Math.max(3, options.leaseMs ?? 60_000);
    this.#heartbeatIntervalMs = Math.max(1, options.heartbeatIntervalMs ?? 10_000);
    this.#finishedJobRetentionMs = Math.max(0, options.finishedJobRetentionMs ?? 7 * DAY_MS);
    this.#pruneIntervalMs = Math.max(1, options.pruneIntervalMs ?? 600_000);
    this.processId = options.processId ?? `${hostname()}/${process.pid}/${randomBytes(4).toString("hex")}`;
    this.#configs = new QueueConfigCache(this.#store.db, CONFIG_MAX_AGE_MS);
    this.#maintenance = new RepeatingTask(this.#pollIntervalMs, () => this.#maintain(), {
      idleMaxIntervalMs: this.#idlePollIntervalMs,
    });
    this.#maintenanceFailures = new FailureReporter(this.#logger, "Taking up expired jobs and running due schedules");
    this.#leases = new RepeatingTask(Math.max(1, Math.floor(this.#leaseMs / 3)), () => this.#renewLeases());
    this.#leaseFailures = new FailureReporter(this.#logger, "Renewing the leases of running jobs");
    this.#heartbeat = new ProcessHeartbeat(
      this.#store.db,
      this.#clock,
      { id: this.processId, hostname: hostname(), pid: process.pid },
      this.#heartbeatIntervalMs,
      this.#logger,
    );
  }

  async enqueue(queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<EnqueuedJob> {
    checkQueueName(queue);
    // Outside a transaction, a queue handled here has its row written first, so the job takes its max retries.
    // (Inside one, waiting could deadlock SQLite's single connection, which the transaction holds.)
    if (options.db === undefined) await this.#queues.get(queue)?.registered;
    const id = await insertJob(options.db ?? this.#store.db, this.#newJob(queue, payload, options, this.#clock.now()));
    this.#notify(queue, options);
    return { id, queue };
  }

  async enqueueMany(queue: string, payloads: readonly unknown[], options: EnqueueOptions = {}): Promise<EnqueuedJob[]> {
    checkQueueName(queue);
    // Deduplication decides per job (which one waits already): those go one at a time.
    if (options.deduplicationKey !== undefined) {
      const jobs: EnqueuedJob[] = [];
      for (const payload of payloads) jobs.push(await this.enqueue(queue, payload, options));
      return jobs;
    }
    if (payloads.length === 0) return [];
    if (options.db === undefined) await this.#queues.get(queue)?.registered;
    const now = this.#clock.now();
    const jobs = payloads.map((payload) => this.#newJob(queue, payload, options, now));
    await insertJobs(options.db ?? this.#store.db, jobs);
    this.#notify(queue, options);
    return jobs.map(({ id }) => ({ id, queue }));
  }

  #newJob(queue: string, payload: unknown, options: EnqueueOptions, now: Date): NewJob {
    return {
      id: this.#ids.next("job"),
      queue,
      payload: serializePayload(payload),
      maxAttempts: options.maxAttempts === undefined ? null : Math.max(1, nonNegativeInteger(options.maxAttempts, 1)),
      backoffBaseMs: nonNegativeInteger(options.backoff?.baseMs, DEFAULT_BACKOFF.baseMs),
      backoffMaxMs: nonNegativeInteger(options.backoff?.maxMs, DEFAULT_BACKOFF.maxMs),
      runAt: new Date(now.getTime() + nonNegativeInteger(options.delayMs, 0)),
      deduplicationKey: options.deduplicationKey ?? null,
      orderingKey: options.orderingKey ?? null,
      now,
    };
  }

  /**
   * Tells the queue's worker in this process of new jobs: it polls now; a job written in the caller's transaction is
   * not visible before that commits, so the worker only looks again after its next finished job or poll.
   */
  #notify(queue: string, options: EnqueueOptions): void {
    const worker = this.#queues.get(queue)?.worker;
    if (options.db === undefined) worker?.wake();
    else worker?.expect();
  }

  handle(queue: string, handler: JobHandler, options: HandlerOptions = {}): void {
    checkQueueName(queue);
    const existing = this.#queues.get(queue);
    if (existing) {
      existing.handler = handler;
      return;
    }
    const registered = this.#register(queue, options).catch((error: unknown) => {
      // start() writes the row again and reports a failure then.
      this.#logger.warn("Could not record the configuration of queue {queue}: {error}", { queue, error });
    });
    const registration: Registration = {
      handler,
      options,
      registered,
      worker: new QueueWorker({
        queue,
        handler: () => registration.handler,
        config: () => this.#configs.get(queue) ?? configFromHandler(queue, options),
        store: this.#store,
        clock: this.#clock,
        processId: this.processId,
        leaseMs: this.#leaseMs,
        pollIntervalMs: this.#pollIntervalMs,
        idlePollIntervalMs: this.#idlePollIntervalMs,
        skipLocked: this.#storage.capabilities.skipLocked,
        storage: this.#storage,
        logger: this.#logger,
        failures: this.#failures,
      }),
    };
    this.#queues.set(queue, registration);
    if (this.#started) void registered.then(() => (this.#started ? registration.worker.start() : undefined));
  }

  async schedule(job: RepeatingJob): Promise<void> {
    await saveSchedule(this.#store.db, job, this.#clock.now());
  }

  async unschedule(name: string): Promise<void> {
    await deleteSchedule(this.#store.db, name);
  }

  start(): Promise<void> {
    this.#starting ??= this.#start().finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #start(): Promise<void> {
    if (this.#started) return;
    for (const [queue, { options }] of this.#queues) await this.#register(queue, options);
    await this.#configs.refresh(this.#clock.now().getTime());
    await this.#heartbeat.start();
    this.#started = true;
    for (const { worker } of this.#queues.values()) worker.start();
    this.#maintenance.start();
    this.#leases.start({ runNow: false });
  }

  async stop(): Promise<void> {
    await this.#starting?.catch(() => {});
    if (!this.#started) return;
    this.#started = false;
    await this.#maintenance.stop();
    // Leases stay renewed while running jobs finish.
    await Promise.all([...this.#queues.values()].map(({ worker }) => worker.stop()));
    await this.#leases.stop();
    try {
      await this.#heartbeat.stop();
    } catch (error) {
      // The row ages out of the list by itself.
      this.#logger.warn("Could not remove this process from the worker list: {error}", { error });
    }
  }

  list(query: JobListQuery): Promise<JobRecord[]> {
    return listJobs(this.#store.db, query, this.#clock.now());
  }

  get(id: string): Promise<JobRecord | null> {
    return getJob(this.#store.db, id, this.#clock.now());
  }

  counts(queue?: string): Promise<JobCounts> {
    return countJobs(this.#store.db, queue, this.#clock.now());
  }

  async retry(id: string): Promise<JobRecord> {
    const record = await retryJob(this.#store.db, id, this.#clock.now());
    this.#queues.get(record.queue)?.worker.wake();
    return record;
  }

  async retryAll(queue: string): Promise<number> {
    const count = await retryAllJobs(this.#store.db, queue, this.#clock.now());
    if (count > 0) this.#queues.get(queue)?.worker.wake();
    return count;
  }

  remove(id: string): Promise<void> {
    return removeJob(this.#store.db, id);
  }

  clear(queue: string, status: JobStatus): Promise<number> {
    return clearJobs(this.#store.db, queue, status, this.#clock.now());
  }

  statsPerDay(days: number, queue?: string): Promise<DailyJobStats[]> {
    return dailyStats(this.#store.db, days, queue, this.#clock.now());
  }

  queues(): Promise<QueueConfig[]> {
    return readQueueConfigs(this.#store.db);
  }

  async configureQueue(name: string, changes: QueueConfigChanges): Promise<QueueConfig> {
    const config = await updateQueueConfig(this.#store.db, name, changes, this.#clock.now());
    // This process applies the change at once; others within CONFIG_MAX_AGE_MS.
    this.#configs.set(config);
    this.#queues.get(name)?.worker.wake();
    return config;
  }

  processes(): Promise<WorkerProcess[]> {
    const since = new Date(this.#clock.now().getTime() - MISSED_HEARTBEATS * this.#heartbeatIntervalMs);
    return liveProcesses(this.#store.db, since);
  }

  async backendInfo(): Promise<QueueBackendInfo> {
    const info = await this.#storage.info();
    return { kind: "embedded", engine: info.engine, version: info.version, sizeBytes: info.sizeBytes };
  }

  #register(queue: string, options: HandlerOptions): Promise<void> {
    return ensureQueueRow(this.#store.db, configFromHandler(queue, options), this.#clock.now());
  }

  /**
   * Work no single queue owns: configuration changes from elsewhere, dead workers' jobs, due repeating jobs. False
   * when it found neither of the last two (it then runs less often while that lasts).
   */
  async #maintain(): Promise<boolean | undefined> {
    try {
      const now = this.#clock.now();
      await this.#configs.refreshIfStale(now.getTime());
      const reaped = await reapExpiredLeases(this.#store, now);
      if (reaped > 0) {
        for (const { worker } of this.#queues.values()) worker.wake();
      }
      const queues = await runDueSchedules(this.#store, now, async (trx, schedule) => {
        await insertJob(trx, {
          id: this.#ids.next("job"),
          queue: schedule.queue,
          payload: schedule.payload,
          maxAttempts: null,
          backoffBaseMs: DEFAULT_BACKOFF.baseMs,
          backoffMaxMs: DEFAULT_BACKOFF.maxMs,
          runAt: now,
          // One pending run per schedule: while a run still waits (a backlog, a disabled queue), the next is not added.
          deduplicationKey: `schedule:${schedule.name}`,
          orderingKey: null,
          now,
        });
      });
      for (const queue of queues) this.#queues.get(queue)?.worker.wake();
      await this.#pruneFinished(now);
      this.#maintenanceFailures.succeeded();
      return reaped > 0 || queues.length > 0;
    } catch (error) {
      this.#maintenanceFailures.failed(error);
      return undefined;
    }
  }

  /** Deletes the finished jobs past their retention, once every prune interval (the first maintenance pass included). */
  async #pruneFinished(now: Date): Promise<void> {
    if (this.#prunedAt !== 0 && now.getTime() - this.#prunedAt < this.#pruneIntervalMs) return;
    this.#prunedAt = now.getTime();
    const deleted = await pruneFinishedJobs(this.#store.db, new Date(now.getTime() - this.#finishedJobRetentionMs));
    if (deleted > 0) this.#logger.debug("Deleted {deleted} finished jobs past their retention", { deleted });
  }

  async #renewLeases(): Promise<void> {
    const ids = [...this.#queues.values()].flatMap(({ worker }) => worker.runningIds());
    if (ids.length === 0) return;
    try {
      const now = this.#clock.now();
      await renewLeases(this.#store.db, ids, this.processId, new Date(now.getTime() + this.#leaseMs));
      this.#leaseFailures.succeeded();
    } catch (error) {
      this.#leaseFailures.failed(error);
    }
  }
}
