import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import {
  AttemptFailures,
  type Clock,
  backoffDelayMs,
  cannotRunYet,
  type DailyJobStats,
  type Database,
  type EnqueueOptions,
  errorMessageOf,
  type EnqueuedJob,
  type HandlerOptions,
  type IdGenerator,
  type JobCounts,
  type JobHandler,
  type JobListQuery,
  type JobRecord,
  type JobStatus,
  KithError,
  NOT_READY_DELAY_MS,
  PendingWork,
  type Queue,
  type QueueBackendInfo,
  type QueueConfig,
  type QueueConfigChanges,
  type RepeatingJob,
  type Storage,
  type WorkerProcess,
  getLogger,
  idTime,
  isKithError,
  lowestIdAt,
  systemClock,
} from "@kith/core";
import { Queue as BullQueue, DelayedError, type Job, type MinimalJob, UnrecoverableError, Worker } from "bullmq";
import { Redis } from "ioredis";
import type { Kysely } from "kysely";
import { RedisKeys, assertQueueName } from "./keys.js";
import { HELD_DELAY_MS, type JobData, readJobData, toJobRecord } from "./records.js";
import { COUNT_JOBS, GET_JOB, LIST_JOBS, ORDER_ADVANCE, ORDER_PUSH } from "./scripts.js";

export interface RedisQueueOptions {
  /** `redis://` or `rediss://` URL of the server. */
  readonly url: string;
  /** The SQL storage whose `job_outbox` table transactional enqueues write to, and the relay reads. */
  readonly storage: Storage;
  readonly ids: IdGenerator;
  /** Dates statistics and heartbeats, and measures how long an outbox row waited. @default the system clock */
  readonly clock?: Clock;
  /** Namespace of every Redis key, so several Kith instances can share one server. @default "kith" */
  readonly prefix?: string;
  /** How often a started process moves committed outbox rows to Redis. @default 1000 */
  readonly relayIntervalMs?: number;
  /** How often a started process reports its heartbeat and re-reads the queue configuration. @default 5000 */
  readonly heartbeatIntervalMs?: number;
  /**
   * How long a finished job stays listed before Redis drops it (BullMQ removes the finished jobs past this age
   * whenever a job of the same queue finishes; failed and dead-lettered jobs stay). @default 7 days, as the
   * database queue keeps them
   */
  readonly finishedJobRetentionMs?: number;
}

/** How long finished jobs are kept unless told otherwise: a week, as in the database queue. */
const FINISHED_JOB_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** The enqueue options as the outbox keeps them (all but `db`). */
interface StoredOptions {
  readonly delayMs?: number;
  readonly maxAttempts?: number;
  readonly backoff?: { readonly baseMs?: number; readonly maxMs?: number };
  readonly deduplicationKey?: string;
  readonly orderingKey?: string;
}

interface Connections {
  /** Commands, Lua scripts and every BullMQ Queue: fails commands when Redis stays away, so enqueue does not hang. */
  readonly client: Redis;
  /** Shared by the BullMQ Workers, which need commands that wait for a reconnection instead of failing. */
  readonly workerClient: Redis;
  readonly queues: Map<string, BullQueue<JobData, void, string>>;
}

/** The Lua scripts, as ioredis defines them on the client. */
interface ScriptCommands {
  kithGetJob(...args: (string | number)[]): Promise<string[]>;
  kithListJobs(...args: (string | number)[]): Promise<[string[][], string[], string]>;
  kithCountJobs(...args: (string | number)[]): Promise<number[]>;
  kithOrderPush(...args: (string | number)[]): Promise<number>;
  kithOrderAdvance(...args: (string | number)[]): Promise<string>;
}

interface HandlerEntry {
  readonly handler: JobHandler;
  readonly options: HandlerOptions;
}

const STATUSES: readonly JobStatus[] = ["submitted", "schedule", "retries", "active", "finished", "failed", "dlq"];
const BACKOFF_TYPE = "kith";
const DEFAULT_MAX_RETRIES = 4;
const RELAY_BATCH = 50;
/** Members of the id index looked at per Lua call while listing, so one call never blocks Redis for long. */
const LIST_SCAN_BUDGET = 5_000;
/** An index entry without its job is only dropped when older than this: the job may be on its way into BullMQ. */
const STALE_INDEX_AFTER_MS = 10 * 60_000;
/** Daily counters are kept a little over a year. */
const STATS_TTL_SECONDS = 400 * 86_400;
/** A job id in an ordering list without its job, older than this, was left by a process that died while enqueueing. */
const ORPHAN_AFTER_MS = 60_000;
/** Kicks of the relay after a transactional enqueue: the transaction commits some time after `enqueue` returns. */
const RELAY_KICKS_MS = [5, 100] as const;

function notFound(): KithError {
  return new KithError("job.not_found");
}

function toError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}

function readStoredOptions(text: string): StoredOptions {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null ? (value as StoredOptions) : {};
  } catch {
    return {};
  }
}

function storedOptions(options: EnqueueOptions): StoredOptions {
  const { db: _db, ...rest } = options;
  return rest;
}

function utcDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** Throws the first error of a MULTI's replies; ioredis resolves `exec` even when commands in it failed. */
function checkReplies(replies: [Error | null, unknown][] | null): unknown[] {
  if (!replies) throw new Error("Redis transaction aborted");
  return replies.map(([error, value]) => {
    if (error) throw error;
    return value;
  });
}

/**
 * The queue port on Redis with BullMQ: one BullMQ queue and worker per Kith
 * queue, for many worker processes. What BullMQ lacks is built beside it in
 * Redis: Kith statuses, an index of job ids for newest-first listing,
 * per-key ordering, dead letters, daily statistics, shared queue
 * configuration and heartbeats. Jobs enqueued with a transaction go through
 * the SQL `job_outbox` table and a relay, so none is lost between the
 * database commit and Redis.
 */
export class RedisQueue implements Queue {
  readonly #url: string;
  readonly #storage: Storage;
  readonly #failures: AttemptFailures;
  readonly #ids: IdGenerator;
  readonly #clock: Clock;
  readonly #keys: RedisKeys;
  readonly #relayIntervalMs: number;
  readonly #heartbeatIntervalMs: number;
  /** BullMQ's age (whole seconds) past which finished jobs are removed. */
  readonly #finishedJobAgeSeconds: number;
  readonly #logger = getLogger(["queue", "redis"]);

  readonly #handlers = new Map<string, HandlerEntry>();
  readonly #registrations = new Map<string, Promise<void>>();
  readonly #workers = new Map<string, Worker<JobData, void, string>>();
  /** Background work (event follow-ups, relay passes, worker loops) that stop() waits for. */
  readonly #pending = new PendingWork();
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  #connections: Connections | undefined;
  #started = false;
  #stopping: Promise<void> | undefined;
  #abort = new AbortController();
  #relaying: Promise<void> | undefined;
  #relayAgain = false;
  #lastRelayFailure = { message: "", at: 0 };
  #process: WorkerProcess | undefined;

  constructor(options: RedisQueueOptions) {
    this.#url = options.url;
    this.#storage = options.storage;
    this.#failures = new AttemptFailures(this.#logger);
    this.#ids = options.ids;
    this.#clock = options.clock ?? systemClock;
    this.#keys = new RedisKeys(options.prefix ?? "kith");
    this.#relayIntervalMs = options.relayIntervalMs ?? 1_000;
    this.#heartbeatIntervalMs = options.heartbeatIntervalMs ?? 5_000;
    this.#finishedJobAgeSeconds = Math.max(1, Math.ceil((options.finishedJobRetentionMs ?? FINISHED_JOB_RETENTION_MS) / 1000));
  }

  // ---------------------------------------------------------------- producing

  async enqueue(queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<EnqueuedJob> {
    assertQueueName(queue);
    const raw = JSON.stringify(payload ?? null);
    const stored = storedOptions(options);
    if (options.db) return this.#enqueueInTransaction(options.db, queue, raw, stored);
    const id = await this.#addJob(queue, this.#ids.next("job"), raw, stored, stored.delayMs ?? 0);
    return { id, queue };
  }

  /**
   * Writes the job to `job_outbox` in the caller's transaction: it reaches
   * Redis (by the relay of any started process) exactly when the
   * transaction commits.
   */
  async #enqueueInTransaction(db: Kysely<Database>, queue: string, raw: string, stored: StoredOptions): Promise<EnqueuedJob> {
    if (stored.deduplicationKey !== undefined) {
      // Best effort: a duplicate of a job already waiting in Redis needs no row. One committed
      // alongside a waiting duplicate is deduplicated by BullMQ when relayed.
      const waiting = await this.#waitingDuplicate(queue, stored.deduplicationKey);
      if (waiting) return { id: waiting, queue };
    }
    const id = this.#ids.next("job");
    await db
      .insertInto("job_outbox")
      .values({ id, queue, payload: raw, options: JSON.stringify(stored), created_at: this.#clock.now().toISOString() })
      .execute();
    if (this.#started) this.#kickRelay();
    return { id, queue };
  }

  /**
   * Adds a job to BullMQ, idempotently for a given id (the relay may add the
   * same row again after a crash). Returns the id of the job that stands for
   * it: another one when a waiting job has the same deduplication key.
   */
  async #addJob(queue: string, id: string, raw: string, options: StoredOptions, delayMs: number): Promise<string> {
    await this.#registrations.get(queue);
    const { client } = this.#connect();
    // Indexed before it exists, so a listing never misses a job that exists (an entry without
    // its job is skipped, and dropped once old).
    const config = await this.#touchQueue(queue, id);
    const delay = Math.max(0, Math.round(delayMs));
    const data: JobData = {
      r: raw,
      t: Date.now() + delay,
      ...(options.backoff ? { b: options.backoff } : {}),
      ...(options.orderingKey !== undefined ? { o: options.orderingKey } : {}),
      ...(options.deduplicationKey !== undefined ? { d: options.deduplicationKey } : {}),
    };
    // In its ordering key's list before it exists, for the same reason; see ORDER_ADVANCE.
    if (options.orderingKey !== undefined) {
      await this.#scripts().kithOrderPush(this.#keys.bull, this.#keys.meta, queue, options.orderingKey, id, HELD_DELAY_MS);
    }
    const job = await this.#bullQueue(queue).add(queue, data, {
      jobId: id,
      attempts: Math.max(1, options.maxAttempts ?? config.maxRetries + 1),
      backoff: { type: BACKOFF_TYPE },
      // Finished jobs were kept for good: a busy server's Redis grew by every delivery and inbox job it ever ran.
      removeOnComplete: { age: this.#finishedJobAgeSeconds },
      // An ordered job waits, held, until the job before it with its key ends (see #advance).
      delay: options.orderingKey !== undefined ? HELD_DELAY_MS : delay,
      ...(options.deduplicationKey !== undefined ? { deduplication: { id: options.deduplicationKey } } : {}),
    });
    if (job.id !== undefined && job.id !== id) {
      // Deduplicated: another job stands for this one, which never existed.
      checkReplies(await client.multi().zrem(this.#keys.jobIndex, `${id}:${queue}`).zrem(this.#keys.queueIndex(queue), id).exec());
      if (options.orderingKey !== undefined) await this.#leaveOrdering(queue, options.orderingKey, id);
      return job.id;
    }
    if (options.orderingKey !== undefined) await this.#advance(queue, options.orderingKey);
    return id;
  }

  /** The id of a job of `queue` with this deduplication key that is still waiting, if any. */
  async #waitingDuplicate(queue: string, key: string): Promise<string | null> {
    const id = await this.#connect().client.get(`${this.#keys.bullBase(queue)}de:${key}`);
    if (!id) return null;
    const record = await this.get(id);
    return record && (record.status === "submitted" || record.status === "schedule" || record.status === "retries") ? record.id : null;
  }

  // ---------------------------------------------------------------- ordering keys

  /**
   * Moves an ordering key on: drops ended jobs from the head of its list and
   * releases the new head if it is held. Called when a job of the key ends,
   * is deleted, or is enqueued, and by a periodic sweep that repairs a key
   * whose follow-up was lost with a crashed process.
   */
  async #advance(queue: string, key: string): Promise<void> {
    const cutoff = lowestIdAt("job", Date.now() - ORPHAN_AFTER_MS);
    const head = await this.#scripts().kithOrderAdvance(this.#keys.bull, this.#keys.meta, queue, key, HELD_DELAY_MS, cutoff);
    if (head) await this.#release(queue, head);
  }

  /** Takes a deleted (or never created) job out of its ordering key's list, and lets the next one go. */
  async #leaveOrdering(queue: string, key: string, id: string): Promise<void> {
    await this.#connect().client.lrem(this.#keys.ordering(queue, key), 0, id);
    await this.#advance(queue, key);
  }

  async #release(queue: string, id: string): Promise<void> {
    const job = await this.#bullQueue(queue).getJob(id);
    if (!job) return;
    const remaining = (readJobData(job.data).t ?? 0) - Date.now();
    try {
      if (remaining > 0) await job.changeDelay(remaining);
      else await job.promote();
    } catch (error) {
      // Another process released it first: it is no longer in the delayed set.
      this.#logger.debug("Ordered job {id} was already released: {error}", { id, error });
    }
  }

  async #sweepOrdering(queue: string): Promise<void> {
    const keys = await this.#connect().client.smembers(this.#keys.orderingKeys(queue));
    for (const key of keys) await this.#advance(queue, key);
  }

  // ---------------------------------------------------------------- working

  handle(queue: string, handler: JobHandler, options: HandlerOptions = {}): void {
    assertQueueName(queue);
    this.#handlers.set(queue, { handler, options });
    const registration = this.#register(queue, options).catch((error: unknown) => {
      this.#logger.error("Could not register queue {queue}: {error}", { queue, error });
    });
    this.#registrations.set(queue, registration);
    this.#pending.track(registration);
    if (this.#started) {
      this.#pending.track(
        this.#startWorker(queue).catch((error: unknown) => {
          this.#logger.error("Could not start the worker of queue {queue}: {error}", { queue, error });
        }),
      );
    }
  }

  /** Records the queue and its handler's defaults; a configuration already stored (by an administrator) wins. */
  async #register(queue: string, options: HandlerOptions): Promise<void> {
    const key = this.#keys.queueConfig(queue);
    checkReplies(
      await this.#connect()
        .client.multi()
        .sadd(this.#keys.queues, queue)
        .hsetnx(key, "description", options.description ?? "")
        .hsetnx(key, "maxRetries", String(options.maxRetries ?? DEFAULT_MAX_RETRIES))
        .hsetnx(key, "concurrency", String(options.concurrency ?? 1))
        .hsetnx(key, "enabled", "1")
        .exec(),
    );
  }

  async start(): Promise<void> {
    if (this.#stopping) await this.#stopping;
    if (this.#started) return;
    this.#started = true;
    this.#abort = new AbortController();
    this.#connect();
    await Promise.all(this.#registrations.values());
    this.#process = {
      id: `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`,
      hostname: hostname(),
      pid: process.pid,
      startedAt: this.#clock.now().toISOString(),
      lastHeartbeatAt: this.#clock.now().toISOString(),
    };
    await this.#beat();
    await Promise.all([...this.#handlers.keys()].map((queue) => this.#startWorker(queue)));
    this.#every(this.#heartbeatIntervalMs, () => this.#tick());
    this.#every(this.#relayIntervalMs, () => this.#relay());
    this.#pending.track(this.#relay());
  }

  async stop(): Promise<void> {
    this.#stopping ??= this.#shutdown().finally(() => {
      this.#stopping = undefined;
    });
    return this.#stopping;
  }

  async #shutdown(): Promise<void> {
    const wasStarted = this.#started;
    this.#started = false;
    this.#abort.abort();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    const workers = [...this.#workers.values()];
    this.#workers.clear();
    // Worker.close waits for the jobs it is running, and takes no new ones meanwhile.
    await Promise.allSettled(workers.map((worker) => worker.close()));
    await this.#pending.settled();
    if (wasStarted && this.#process) {
      const id = this.#process.id;
      await this.#connect()
        .client.multi()
        .del(this.#keys.process(id))
        .srem(this.#keys.processes, id)
        .exec()
        .catch(() => null);
    }
    await this.#disconnect();
  }

  async #startWorker(queue: string): Promise<void> {
    await this.#registrations.get(queue);
    if (!this.#started || this.#workers.has(queue)) return;
    const config = await this.#readConfig(queue);
    if (!this.#started || this.#workers.has(queue)) return;
    const worker = new Worker<JobData, void, string>(queue, (job, token, signal) => this.#run(queue, job, token, signal), {
      connection: this.#connect().workerClient,
      prefix: this.#keys.bull,
      concurrency: config.concurrency,
      autorun: false,
      // BullMQ waits this long after a failed poll (Redis away) before polling again; its 15 s default
      // keeps a worker idle long after Redis is back.
      runRetryDelay: 500,
      settings: {
        backoffStrategy: (attemptsMade: number, _type?: string, _error?: Error, job?: MinimalJob) =>
          backoffDelayMs(attemptsMade, readJobData(job?.data).b),
      },
    });
    worker.on("completed", (job) => this.#afterAttempt(queue, job));
    worker.on("failed", (job, error) => {
      if (!job) return;
      this.#afterAttempt(queue, job);
      const retrying = error.name !== "UnrecoverableError" && job.attemptsMade < (job.opts.attempts ?? 1);
      if (retrying) {
        this.#failures.failed({ id: job.id ?? "", queue, attempt: job.attemptsMade, error: errorMessageOf(error), delayMs: null });
        this.#pending.track(this.#restoreDeduplication(queue, job.id ?? "", job.data));
      } else {
        this.#logger.warn("Job {id} of queue {queue} failed for good after attempt {attempt}: {error}", {
          id: job.id,
          queue,
          attempt: job.attemptsMade,
          error: errorMessageOf(error),
        });
      }
    });
    worker.on("error", (error) => {
      this.#logger.warn("Worker of queue {queue} failed: {error}", { queue, error });
    });
    this.#workers.set(queue, worker);
    await this.#applyEnabled(queue, config.enabled);
    this.#pending.track(
      worker.run().catch((error: unknown) => {
        this.#logger.error("Worker of queue {queue} stopped: {error}", { queue, error });
      }),
    );
  }

  /** Runs one attempt of a job through the queue's handler. */
  async #run(queue: string, job: Job<JobData, void, string>, token: string | undefined, signal: AbortSignal | undefined): Promise<void> {
    const entry = this.#handlers.get(queue);
    const id = job.id ?? "";
    if (!entry) throw new Error(`No handler for queue ${queue}`);
    // The port deduplicates against waiting jobs only: once running, a job no longer absorbs new ones.
    if (job.deduplicationId) await job.removeDeduplicationKey();
    const data = readJobData(job.data);
    let payload: unknown;
    try {
      if (typeof data.r !== "string") throw new Error("the job has no payload text");
      payload = JSON.parse(data.r);
    } catch (error) {
      await this.#deadLetter(queue, id);
      throw new UnrecoverableError(`The job's payload cannot be read: ${toError(error).message}`);
    }
    const signals = signal ? [this.#abort.signal, signal] : [this.#abort.signal];
    try {
      await entry.handler(payload, { id, queue, attempt: job.attemptsMade + 1, signal: AbortSignal.any(signals) });
    } catch (thrown) {
      if (cannotRunYet(thrown, this.#storage)) {
        // Not the job's fault: back to the delayed set without counting the attempt, and BullMQ told to leave it there.
        this.#logger.debug("Job {id} of queue {queue} cannot run yet; it runs again shortly: {error}", { id, queue, error: errorMessageOf(thrown) });
        await job.moveToDelayed(Date.now() + NOT_READY_DELAY_MS, token);
        throw new DelayedError();
      }
      if (isKithError(thrown) && thrown.code === "job.unreadable_payload") {
        await this.#deadLetter(queue, id);
        // UnrecoverableError: BullMQ fails the job at once, whatever attempts it has left.
        throw new UnrecoverableError(thrown.message);
      }
      const error = toError(thrown);
      // This attempt is the last when no attempt is left, or when BullMQ will not retry the error.
      if (error.name === "UnrecoverableError" || job.attemptsMade + 1 >= (job.opts.attempts ?? 1)) await this.#countDay(queue, "failed");
      throw error;
    }
    // Counted before BullMQ records the outcome, so statistics never lag behind the job's status.
    await this.#countDay(queue, "finished");
  }

  async #deadLetter(queue: string, id: string): Promise<void> {
    await this.#connect().client.sadd(this.#keys.deadLetters(queue), id);
    await this.#countDay(queue, "failed");
  }

  async #countDay(queue: string, outcome: "finished" | "failed"): Promise<void> {
    const key = this.#keys.dailyStats(utcDay(this.#clock.now().getTime()));
    try {
      checkReplies(
        await this.#connect()
          .client.multi()
          .hincrby(key, `${queue}:${outcome}`, 1)
          .hincrby(key, `*:${outcome}`, 1)
          .expire(key, STATS_TTL_SECONDS)
          .exec(),
      );
    } catch (error) {
      // Statistics are not worth failing a job for.
      this.#logger.warn("Could not count a {outcome} job of {queue}: {error}", { outcome, queue, error });
    }
  }

  /**
   * A job back to waiting (a retry after a failed attempt, or retry()) takes
   * its deduplication key back, as the SQL queue does, unless another job of
   * that key waits already.
   */
  async #restoreDeduplication(queue: string, id: string, data: unknown): Promise<void> {
    const key = readJobData(data).d;
    if (typeof key !== "string" || id === "") return;
    await this.#connect().client.set(`${this.#keys.bullBase(queue)}de:${key}`, id, "NX");
  }

  /** After BullMQ recorded an attempt's outcome: an ended ordered job lets the next of its key go. */
  #afterAttempt(queue: string, job: Job<JobData, void, string>): void {
    const key = readJobData(job.data).o;
    if (typeof key !== "string") return;
    this.#pending.track(
      this.#advance(queue, key).catch((error: unknown) => {
        // The periodic sweep retries it.
        this.#logger.warn("Could not move ordering key {key} of {queue} on: {error}", { key, queue, error });
      }),
    );
  }

  /** Heartbeat, configuration changes made elsewhere, and repair of ordering keys. */
  async #tick(): Promise<void> {
    await this.#beat();
    for (const [queue, worker] of this.#workers) {
      const config = await this.#readConfig(queue);
      if (worker.concurrency !== config.concurrency) worker.concurrency = config.concurrency;
      await this.#applyEnabled(queue, config.enabled);
      await this.#sweepOrdering(queue);
    }
  }

  async #beat(): Promise<void> {
    const current = this.#process;
    if (!current) return;
    const beat: WorkerProcess = { ...current, lastHeartbeatAt: this.#clock.now().toISOString() };
    this.#process = beat;
    checkReplies(
      await this.#connect()
        .client.multi()
        .set(this.#keys.process(beat.id), JSON.stringify(beat), "PX", this.#heartbeatIntervalMs * 3)
        .sadd(this.#keys.processes, beat.id)
        .exec(),
    );
  }

  /** A disabled queue is paused in BullMQ, for every worker process at once. */
  async #applyEnabled(queue: string, enabled: boolean): Promise<void> {
    const bullQueue = this.#bullQueue(queue);
    const paused = await bullQueue.isPaused();
    if (enabled && paused) await bullQueue.resume();
    else if (!enabled && !paused) await bullQueue.pause();
  }

  // ---------------------------------------------------------------- outbox relay

  #kickRelay(): void {
    for (const delay of RELAY_KICKS_MS) {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        this.#pending.track(this.#relay());
      }, delay);
      timer.unref();
      this.#timers.add(timer);
    }
  }

  /** Moves every committed outbox row to Redis; one pass at a time in a process. */
  async #relay(): Promise<void> {
    if (!this.#started) return;
    if (this.#relaying) {
      this.#relayAgain = true;
      return this.#relaying;
    }
    this.#relaying = (async () => {
      try {
        do {
          this.#relayAgain = false;
          while (this.#started && (await this.#relayBatch()) === RELAY_BATCH) {}
        } while (this.#relayAgain && this.#started);
      } catch (error) {
        this.#reportRelayFailure(error);
      } finally {
        this.#relaying = undefined;
      }
    })();
    return this.#relaying;
  }

  /**
   * Claims a batch of rows by deleting them in a transaction, adds them to
   * Redis, then commits. A failure rolls the delete back, so the rows wait
   * for the next pass; a crash after adding but before the commit makes the
   * next pass add them again, which is harmless: the job id is the row id.
   * On PostgreSQL, SKIP LOCKED lets several processes relay side by side.
   */
  async #relayBatch(): Promise<number> {
    const skipLocked = this.#storage.capabilities.skipLocked;
    return this.#storage.transaction(async (trx) => {
      const rows = await trx
        .deleteFrom("job_outbox")
        .where(
          "id",
          "in",
          trx
            .selectFrom("job_outbox")
            .select("id")
            .orderBy("id")
            .limit(RELAY_BATCH)
            .$if(skipLocked, (query) => query.forUpdate().skipLocked()),
        )
        .returningAll()
        .execute();
      rows.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      const now = this.#clock.now().getTime();
      for (const row of rows) {
        const options = readStoredOptions(row.options);
        // PostgreSQL drivers may hand back a Date rather than the ISO text.
        const createdAt = new Date(row.created_at).getTime();
        const waited = Number.isFinite(createdAt) ? Math.max(0, now - createdAt) : 0;
        await this.#addJob(row.queue, row.id, row.payload, options, (options.delayMs ?? 0) - waited);
      }
      return rows.length;
    });
  }

  #reportRelayFailure(error: unknown): void {
    const message = toError(error).message;
    const now = Date.now();
    // Once a minute per distinct failure: a missing table or an unreachable server fails every pass.
    if (message === this.#lastRelayFailure.message && now - this.#lastRelayFailure.at < 60_000) return;
    this.#lastRelayFailure = { message, at: now };
    this.#logger.warn("Could not relay outbox jobs to Redis: {error}", { error });
  }

  // ---------------------------------------------------------------- repeating jobs

  async schedule(job: RepeatingJob): Promise<void> {
    assertQueueName(job.queue);
    if (!(job.everyMs > 0)) throw new RangeError("everyMs must be positive");
    const { client } = this.#connect();
    await this.#registrations.get(job.queue);
    const config = await this.#touchQueue(job.queue);
    const previous = await client.hget(this.#keys.schedules, job.name);
    if (previous && previous !== job.queue) await this.#bullQueue(previous).removeJobScheduler(job.name);
    await client.hset(this.#keys.schedules, job.name, job.queue);
    const data: JobData = { r: JSON.stringify(job.payload ?? null), t: 0 };
    await this.#bullQueue(job.queue).upsertJobScheduler(
      job.name,
      { every: job.everyMs },
      {
        name: job.queue,
        data,
        // Runs have BullMQ's ids, not Kith ids, so they are not listed; finished ones are not kept.
        opts: { attempts: config.maxRetries + 1, backoff: { type: BACKOFF_TYPE }, removeOnComplete: true, removeOnFail: 1_000 },
      },
    );
  }

  async unschedule(name: string): Promise<void> {
    const { client } = this.#connect();
    const queue = await client.hget(this.#keys.schedules, name);
    if (!queue) return;
    await this.#bullQueue(queue).removeJobScheduler(name);
    await client.hdel(this.#keys.schedules, name);
  }

  // ---------------------------------------------------------------- admin

  async list(query: JobListQuery): Promise<JobRecord[]> {
    const records: JobRecord[] = [];
    let upper = query.maxId ? `(${query.maxId}` : "+";
    while (records.length < query.limit) {
      const [rows, stale, next] = await this.#scripts().kithListJobs(
        ...this.#scriptHead(),
        query.queue ?? "",
        query.status ?? "",
        upper,
        query.limit - records.length,
        LIST_SCAN_BUDGET,
      );
      for (const row of rows) records.push(toJobRecord(row));
      await this.#dropStale(stale, query.queue);
      if (!next) break;
      upper = next;
    }
    return records;
  }

  async get(id: string): Promise<JobRecord | null> {
    const row = await this.#scripts().kithGetJob(...this.#scriptHead(), id);
    return row.length > 0 ? toJobRecord(row) : null;
  }

  async counts(queue?: string): Promise<JobCounts> {
    const queues = queue !== undefined ? [queue] : await this.#connect().client.smembers(this.#keys.queues);
    const counts = queues.length > 0 ? await this.#scripts().kithCountJobs(...this.#scriptHead(), ...queues) : [];
    return Object.fromEntries(STATUSES.map((status, i) => [status, Number(counts[i] ?? 0)])) as Record<JobStatus, number>;
  }

  async retry(id: string): Promise<JobRecord> {
    const record = await this.get(id);
    if (!record) throw notFound();
    if (record.status !== "failed" && record.status !== "dlq") throw new KithError("job.not_retryable");
    if (!(await this.#retryJob(record.queue, id))) throw new KithError("job.not_retryable");
    return (await this.get(id)) ?? record;
  }

  async retryAll(queue: string): Promise<number> {
    const { client } = this.#connect();
    const [failed, dead] = await Promise.all([
      client.zrange(`${this.#keys.bullBase(queue)}failed`, 0, -1),
      client.smembers(this.#keys.deadLetters(queue)),
    ]);
    // Dead letters are retried one by one, on purpose: their payload failed to be read.
    const deadSet = new Set(dead);
    let retried = 0;
    for (const id of failed) {
      if (!deadSet.has(id) && (await this.#retryJob(queue, id))) retried += 1;
    }
    return retried;
  }

  /** A failed job back to waiting, with its attempts reset; false when it is not failed (any more). */
  async #retryJob(queue: string, id: string): Promise<boolean> {
    const job = await this.#bullQueue(queue).getJob(id);
    if (!job) return false;
    // Unmarked first: were the retried job to become a dead letter again at once, its new mark must stay.
    await this.#connect().client.srem(this.#keys.deadLetters(queue), id);
    try {
      await job.retry("failed", { resetAttemptsMade: true, resetAttemptsStarted: true });
    } catch {
      return false;
    }
    await this.#restoreDeduplication(queue, id, job.data);
    return true;
  }

  async remove(id: string): Promise<void> {
    const record = await this.get(id);
    if (!record) throw notFound();
    if (record.status === "active") throw new KithError("job.active");
    if (!(await this.#removeJob(record))) throw new KithError("job.active");
    if (record.orderingKey !== null) await this.#leaveOrdering(record.queue, record.orderingKey, record.id);
  }

  /** Deletes a job that is not active; false when it is (BullMQ refuses to delete a locked job). */
  async #removeJob(record: JobRecord): Promise<boolean> {
    let removed: number;
    try {
      removed = await this.#bullQueue(record.queue).remove(record.id);
    } catch (error) {
      // BullMQ refuses to delete the next run of a job scheduler: it goes with its schedule.
      throw new KithError("job.active", { message: "The next run of a repeating job is removed by unscheduling it", cause: error });
    }
    if (removed !== 1) return false;
    checkReplies(
      await this.#connect()
        .client.multi()
        .zrem(this.#keys.jobIndex, `${record.id}:${record.queue}`)
        .zrem(this.#keys.queueIndex(record.queue), record.id)
        .srem(this.#keys.deadLetters(record.queue), record.id)
        .exec(),
    );
    return true;
  }

  async clear(queue: string, status: JobStatus): Promise<number> {
    if (status === "active") throw new KithError("job.active");
    let cleared = 0;
    let upper = "+";
    for (;;) {
      const [rows, , next] = await this.#scripts().kithListJobs(...this.#scriptHead(), queue, status, upper, 200, LIST_SCAN_BUDGET);
      for (const row of rows) {
        const record = toJobRecord(row);
        // A job that turned active meanwhile is left alone.
        if (await this.#removeJob(record).catch(() => false)) {
          cleared += 1;
          if (record.orderingKey !== null) await this.#leaveOrdering(queue, record.orderingKey, record.id);
        }
      }
      if (!next) break;
      upper = next;
    }
    return cleared;
  }

  async statsPerDay(days: number, queue?: string): Promise<DailyJobStats[]> {
    const today = Date.parse(`${utcDay(this.#clock.now().getTime())}T00:00:00Z`);
    const field = queue ?? "*";
    const pipeline = this.#connect().client.pipeline();
    const dayList: string[] = [];
    for (let back = Math.max(1, Math.floor(days)) - 1; back >= 0; back--) {
      const day = utcDay(today - back * 86_400_000);
      dayList.push(day);
      pipeline.hmget(this.#keys.dailyStats(day), `${field}:finished`, `${field}:failed`);
    }
    const replies = checkReplies(await pipeline.exec()) as (string | null)[][];
    return dayList.map((day, i) => {
      const [finished, failed] = replies[i] ?? [];
      return { day, finished: Number(finished ?? 0), failed: Number(failed ?? 0) };
    });
  }

  async queues(): Promise<QueueConfig[]> {
    const { client } = this.#connect();
    const names = (await client.smembers(this.#keys.queues)).sort();
    const pipeline = client.pipeline();
    for (const name of names) pipeline.hgetall(this.#keys.queueConfig(name));
    const hashes = checkReplies(await pipeline.exec()) as Record<string, string>[];
    return names.map((name, i) => this.#configFrom(name, hashes[i] ?? {}));
  }

  async configureQueue(name: string, changes: QueueConfigChanges): Promise<QueueConfig> {
    const { client } = this.#connect();
    if ((await client.sismember(this.#keys.queues, name)) !== 1) throw new KithError("queue.not_found");
    if (changes.concurrency !== undefined && !(Number.isInteger(changes.concurrency) && changes.concurrency >= 1)) {
      throw new RangeError("concurrency must be a positive integer");
    }
    if (changes.maxRetries !== undefined && !(Number.isInteger(changes.maxRetries) && changes.maxRetries >= 0)) {
      throw new RangeError("maxRetries must be a non-negative integer");
    }
    const fields: Record<string, string> = {};
    if (changes.description !== undefined) fields.description = changes.description;
    if (changes.maxRetries !== undefined) fields.maxRetries = String(changes.maxRetries);
    if (changes.concurrency !== undefined) fields.concurrency = String(changes.concurrency);
    if (changes.enabled !== undefined) fields.enabled = changes.enabled ? "1" : "0";
    if (Object.keys(fields).length > 0) await client.hset(this.#keys.queueConfig(name), fields);
    const config = await this.#readConfig(name);
    // Applied here at once; other processes pick the concurrency up at their next heartbeat.
    if (changes.enabled !== undefined) await this.#applyEnabled(name, config.enabled);
    const worker = this.#workers.get(name);
    if (worker && worker.concurrency !== config.concurrency) worker.concurrency = config.concurrency;
    return config;
  }

  async processes(): Promise<WorkerProcess[]> {
    const { client } = this.#connect();
    const ids = await client.smembers(this.#keys.processes);
    if (ids.length === 0) return [];
    const values = await client.mget(ids.map((id) => this.#keys.process(id)));
    const live: WorkerProcess[] = [];
    const gone: string[] = [];
    ids.forEach((id, i) => {
      const value = values[i];
      if (value) live.push(JSON.parse(value) as WorkerProcess);
      else gone.push(id);
    });
    // Heartbeat keys expire by themselves; their ids are forgotten here.
    if (gone.length > 0) await client.srem(this.#keys.processes, ...gone);
    return live.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  }

  async backendInfo(): Promise<QueueBackendInfo> {
    const info = await this.#connect().client.info();
    const fields = new Map<string, string>();
    for (const line of info.split(/\r?\n/)) {
      const at = line.indexOf(":");
      if (at > 0 && !line.startsWith("#")) fields.set(line.slice(0, at), line.slice(at + 1).trim());
    }
    return {
      kind: "redis",
      version: fields.get("redis_version") ?? fields.get("valkey_version") ?? "unknown",
      usedMemoryBytes: Number(fields.get("used_memory") ?? 0),
      connectedClients: Number(fields.get("connected_clients") ?? 0),
    };
  }

  // ---------------------------------------------------------------- plumbing

  /** Records the queue as known (and, given a job id, indexes the job), and returns the queue's configuration. */
  async #touchQueue(queue: string, jobId?: string): Promise<QueueConfig> {
    const multi = this.#connect().client.multi().hgetall(this.#keys.queueConfig(queue)).sadd(this.#keys.queues, queue);
    if (jobId !== undefined) multi.zadd(this.#keys.jobIndex, 0, `${jobId}:${queue}`).zadd(this.#keys.queueIndex(queue), 0, jobId);
    const [hash] = checkReplies(await multi.exec()) as [Record<string, string>];
    return this.#configFrom(queue, hash);
  }

  async #readConfig(queue: string): Promise<QueueConfig> {
    return this.#configFrom(queue, await this.#connect().client.hgetall(this.#keys.queueConfig(queue)));
  }

  #configFrom(name: string, hash: Record<string, string>): QueueConfig {
    const local = this.#handlers.get(name)?.options;
    const number = (value: string | undefined): number | undefined => {
      const parsed = value === undefined ? Number.NaN : Number(value);
      return Number.isFinite(parsed) ? parsed : undefined;
    };
    return {
      name,
      description: hash.description ?? local?.description ?? "",
      maxRetries: number(hash.maxRetries) ?? local?.maxRetries ?? DEFAULT_MAX_RETRIES,
      concurrency: number(hash.concurrency) ?? local?.concurrency ?? 1,
      enabled: hash.enabled === undefined ? true : hash.enabled === "1",
    };
  }

  async #dropStale(members: readonly string[], queue: string | undefined): Promise<void> {
    const cutoff = Date.now() - STALE_INDEX_AFTER_MS;
    const old = members.filter((member) => {
      const id = queue === undefined ? member.slice(0, member.indexOf(":")) : member;
      try {
        return idTime(id) < cutoff;
      } catch {
        return true;
      }
    });
    if (old.length === 0) return;
    const { client } = this.#connect();
    if (queue === undefined) await client.zrem(this.#keys.jobIndex, ...old);
    else await client.zrem(this.#keys.queueIndex(queue), ...old);
  }

  /** The arguments every status-reading script starts with. */
  #scriptHead(): [string, string, number, number] {
    return [this.#keys.bull, this.#keys.meta, Date.now(), HELD_DELAY_MS];
  }

  #scripts(): ScriptCommands {
    return this.#connect().client as unknown as ScriptCommands;
  }

  /** Connections are opened on first use and closed by stop(); a later call opens them again. */
  #connect(): Connections {
    if (this.#connections) return this.#connections;
    const name = `${this.#keys.bull}:kith`;
    const client = new Redis(this.#url, { connectionName: name });
    const workerClient = new Redis(this.#url, { connectionName: `${name}-workers`, maxRetriesPerRequest: null });
    for (const connection of [client, workerClient]) {
      connection.on("error", (error: unknown) => {
        this.#logger.debug("Redis connection error: {error}", { error });
      });
    }
    client.defineCommand("kithGetJob", { numberOfKeys: 0, lua: GET_JOB });
    client.defineCommand("kithListJobs", { numberOfKeys: 0, lua: LIST_JOBS });
    client.defineCommand("kithCountJobs", { numberOfKeys: 0, lua: COUNT_JOBS });
    client.defineCommand("kithOrderPush", { numberOfKeys: 0, lua: ORDER_PUSH });
    client.defineCommand("kithOrderAdvance", { numberOfKeys: 0, lua: ORDER_ADVANCE });
    this.#connections = { client, workerClient, queues: new Map() };
    return this.#connections;
  }

  #bullQueue(queue: string): BullQueue<JobData, void, string> {
    const connections = this.#connect();
    let bullQueue = connections.queues.get(queue);
    if (!bullQueue) {
      bullQueue = new BullQueue<JobData, void, string>(queue, { connection: connections.client, prefix: this.#keys.bull });
      bullQueue.on("error", (error) => {
        this.#logger.warn("Queue {queue} failed: {error}", { queue, error });
      });
      connections.queues.set(queue, bullQueue);
    }
    return bullQueue;
  }

  async #disconnect(): Promise<void> {
    const connections = this.#connections;
    this.#connections = undefined;
    if (!connections) return;
    await Promise.allSettled([...connections.queues.values()].map((queue) => queue.close()));
    for (const connection of [connections.client, connections.workerClient]) {
      try {
        await connection.quit();
      } catch {
        connection.disconnect();
      }
    }
  }

  #every(intervalMs: number, work: () => Promise<void>): void {
    const schedule = (): void => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        const run = work()
          .catch((error: unknown) => {
            this.#logger.warn("Periodic queue work failed: {error}", { error });
          })
          .finally(() => {
            if (this.#started) schedule();
          });
        this.#pending.track(run);
      }, intervalMs);
      timer.unref();
      this.#timers.add(timer);
    };
    schedule();
  }
}

/** A queue on Redis (BullMQ) for many worker processes; see {@link RedisQueue}. */
export function createRedisQueue(options: RedisQueueOptions): Queue {
  return new RedisQueue(options);
}
