import PQueue from "p-queue";
import { isKithError } from "../../domain/errors.js";
import type { Logger } from "../../logging.js";
import type { Clock } from "../../ports/clock.js";
import type { JobHandler, QueueConfig } from "../../ports/queue.js";
import type { Storage } from "../../ports/storage.js";
import type { JobRow } from "../../ports/storage-schema.js";
import { AttemptFailures } from "./attempt-failures.js";
import { backoffDelayMs } from "./backoff.js";
import { describeError, errorMessageOf, parsePayload } from "./job-rows.js";
import { type Claim, type QueueStore, claimJobs, endJob, finishJob, releaseJob, scheduleRetry } from "./job-transitions.js";
import { NOT_READY_DELAY_MS, cannotRunYet } from "./not-ready.js";
import { FailureReporter } from "./poll-errors.js";
import { RepeatingTask } from "./repeating-task.js";

export interface QueueWorkerOptions {
  readonly queue: string;
  /** The queue's current handler (`handle()` may replace it). */
  readonly handler: () => JobHandler;
  /** The queue's current configuration (an administrator may change it). */
  readonly config: () => QueueConfig;
  readonly store: QueueStore;
  readonly clock: Clock;
  readonly processId: string;
  readonly leaseMs: number;
  readonly pollIntervalMs: number;
  /** The longest wait between polls while the queue stays empty (see RepeatingTask). */
  readonly idlePollIntervalMs: number;
  readonly skipLocked: boolean;
  /** Tells a failure that is the database's unavailability, not the job's (see `cannotRunYet`). */
  readonly storage?: Pick<Storage, "isUnavailable">;
  readonly logger: Logger;
  /** Where failed attempts are logged; one for all the queues' workers, so each kind of failure is logged once. */
  readonly failures?: AttemptFailures;
}

type Outcome =
  | { readonly kind: "finished" }
  | { readonly kind: "retry"; readonly error: string; readonly message: string; readonly delayMs: number }
  | { readonly kind: "failed" | "dlq"; readonly error: string }
  | { readonly kind: "released"; readonly delayMs?: number };

/** Waits before writing an attempt's outcome again after the database refused it. */
const OUTCOME_RETRY_DELAYS_MS = [200, 1_000, 5_000];

/**
 * Works one queue in this process: polls for runnable jobs, claims as many
 * as the queue's concurrency leaves room for, runs them on a p-queue limited
 * to that concurrency, and writes each attempt's outcome. It claims only what
 * it can start at once, so no job sits leased in memory while another
 * process could run it; while jobs run, it claims again once half the
 * slots are free (a claim reads the queue's runnable jobs: one per finished
 * job cost a delivery more than its own statements). A finished job wakes
 * the poll at once, which keeps a busy queue moving (and ordering keys in
 * step) between poll intervals,
 * unless the last claim found fewer jobs than it had room for: then the
 * queue had nothing more to give, and a claim after each finished job would
 * find nothing again (half the statements of a quiet queue's jobs). A local
 * enqueue, a finished job with an ordering key (its successor may now run)
 * and the poll interval still look again.
 */
export class QueueWorker {
  readonly #jobs = new PQueue({ concurrency: 1 });
  readonly #running = new Map<string, Claim>();
  readonly #poll: RepeatingTask;
  readonly #pollFailures: FailureReporter;
  readonly #failures: AttemptFailures;
  #abort = new AbortController();
  #stopping = false;
  /** The last claim took fewer jobs than it had room for: nothing runnable was left then. */
  #drained = false;

  constructor(private readonly options: QueueWorkerOptions) {
    this.#poll = new RepeatingTask(options.pollIntervalMs, () => this.#claimAndRun(), {
      idleMaxIntervalMs: options.idlePollIntervalMs,
    });
    this.#pollFailures = new FailureReporter(options.logger, `Polling queue "${options.queue}" for jobs`);
    this.#failures = options.failures ?? new AttemptFailures(options.logger);
  }

  start(): void {
    if (this.#poll.active) return;
    this.#stopping = false;
    this.#abort = new AbortController();
    this.#poll.start();
  }

  /** Polls now: a job was enqueued here, or a slot freed up. */
  wake(): void {
    this.#drained = false;
    this.#poll.trigger();
  }

  /**
   * Jobs were written that are not visible yet (in a transaction not yet committed): the next finished job looks
   * again, and the next poll comes within the poll interval, however long an idle queue's wait had grown.
   */
  expect(): void {
    this.#drained = false;
    this.#poll.hurry();
  }

  /** Ids of the jobs this worker runs now, whose leases the queue renews. */
  runningIds(): string[] {
    return [...this.#running.keys()];
  }

  /** Takes no more jobs, tells running handlers to stop, and waits for them and their outcomes to be written. */
  async stop(): Promise<void> {
    this.#stopping = true;
    await this.#poll.stop();
    this.#abort.abort();
    await this.#jobs.onIdle();
  }

  /** Claims what the free slots allow and starts it; false when the queue had nothing for this worker (it may poll less). */
  async #claimAndRun(): Promise<boolean | undefined> {
    const config = this.options.config();
    if (!config.enabled || this.#stopping) return false;
    const concurrency = Math.max(1, Math.trunc(config.concurrency));
    if (this.#jobs.concurrency !== concurrency) this.#jobs.concurrency = concurrency;
    // Counted by this worker's own map, not p-queue's pending count: a job's last step (waking this poll)
    // runs inside its p-queue task, which p-queue still counts as pending at that moment.
    const free = concurrency - this.#running.size;
    if (free <= 0) return true;
    // A claim reads every runnable job of the queue to pick the first ones: while others still run, slots are
    // refilled half a concurrency at a time rather than one claim per finished job.
    if (this.#running.size > 0 && free < Math.ceil(concurrency / 2)) return true;
    let rows: JobRow[];
    try {
      rows = await claimJobs(this.options.store.db, {
        queue: this.options.queue,
        limit: free,
        processId: this.options.processId,
        now: this.options.clock.now(),
        leaseMs: this.options.leaseMs,
        skipLocked: this.options.skipLocked,
      });
      this.#drained = rows.length < free;
      this.#pollFailures.succeeded();
    } catch (error) {
      this.#pollFailures.failed(error);
      return undefined;
    }
    for (const row of rows) {
      const claim: Claim = { id: row.id, queue: row.queue, tries: Number(row.tries) };
      if (this.#stopping) {
        // stop() came while claiming: give the job back untried rather than start it.
        await this.#record(claim, { kind: "released" });
        continue;
      }
      this.#running.set(claim.id, claim);
      const signal = this.#abort.signal;
      // #run never rejects: it writes every outcome itself.
      void this.#jobs.add(() => this.#run(row, claim, signal));
    }
    return rows.length > 0 || this.#running.size > 0;
  }

  async #run(row: JobRow, claim: Claim, signal: AbortSignal): Promise<void> {
    try {
      const outcome = await this.#attempt(row, claim, signal);
      await this.#record(claim, outcome);
    } finally {
      this.#running.delete(claim.id);
      if (!this.#drained || row.ordering_key !== null) this.#poll.trigger();
    }
  }

  async #attempt(row: JobRow, claim: Claim, signal: AbortSignal): Promise<Outcome> {
    const parsed = parsePayload(row.payload);
    // A payload that does not parse never will: straight to the dead-letter list, without calling the handler.
    if (!parsed.ok) return { kind: "dlq", error: `The payload is not valid JSON: ${parsed.error}` };
    try {
      await this.options.handler()(parsed.value, { id: claim.id, queue: claim.queue, attempt: claim.tries, signal });
      return { kind: "finished" };
    } catch (error) {
      // The handler says the payload cannot be read: retrying would fail the same way.
      if (isKithError(error) && error.code === "job.unreadable_payload") return { kind: "dlq", error: describeError(error) };
      // Interrupted by the shutdown, not failed: the attempt does not count.
      if (this.#stopping && signal.aborted) return { kind: "released" };
      // Not the job's fault (this process is not ready for it, the database is away): given back, uncounted.
      if (cannotRunYet(error, this.options.storage)) {
        this.options.logger.debug("Job {id} of queue {queue} cannot run yet; it runs again shortly: {error}", {
          id: claim.id,
          queue: claim.queue,
          error: errorMessageOf(error),
        });
        return { kind: "released", delayMs: NOT_READY_DELAY_MS };
      }
      if (claim.tries >= Number(row.max_attempts)) return { kind: "failed", error: describeError(error) };
      const delayMs = backoffDelayMs(claim.tries, { baseMs: Number(row.backoff_base_ms), maxMs: Number(row.backoff_max_ms) });
      return { kind: "retry", error: describeError(error), message: errorMessageOf(error), delayMs };
    }
  }

  /** Writes an attempt's outcome, trying again a few times should the database refuse for a moment. */
  async #record(claim: Claim, outcome: Outcome): Promise<void> {
    const { store, processId, logger } = this.options;
    for (let attempt = 0; ; attempt++) {
      const now = this.options.clock.now();
      try {
        let held: boolean;
        switch (outcome.kind) {
          case "finished":
            held = await finishJob(store, claim, processId, now);
            break;
          case "retry":
            held = await scheduleRetry(store.db, claim, processId, new Date(now.getTime() + outcome.delayMs), outcome.error, now);
            break;
          case "failed":
          case "dlq":
            held = await endJob(store, claim, processId, { state: outcome.kind, error: outcome.error }, now);
            break;
          case "released":
            held = await releaseJob(store.db, claim, processId, now, new Date(now.getTime() + (outcome.delayMs ?? 0)));
            break;
        }
        if (!held) {
          logger.warn("Job {id} of queue {queue} was taken up by another worker before its outcome here was written (its lease expired)", {
            id: claim.id,
            queue: claim.queue,
          });
        } else if (outcome.kind === "failed" || outcome.kind === "dlq") {
          logger.warn("Job {id} of queue {queue} {verdict} after attempt {attempt}: {error}", {
            id: claim.id,
            queue: claim.queue,
            verdict: outcome.kind === "failed" ? "failed for good" : "went to the dead-letter list",
            attempt: claim.tries,
            error: outcome.error,
          });
        } else if (outcome.kind === "retry") {
          this.#failures.failed({ id: claim.id, queue: claim.queue, attempt: claim.tries, error: outcome.message, delayMs: outcome.delayMs });
        }
        return;
      } catch (error) {
        const delay = OUTCOME_RETRY_DELAYS_MS[attempt];
        if (delay === undefined) {
          // The lease runs out and the job is taken up again: it may run twice, never get lost.
          logger.error("Could not record the outcome ({outcome}) of job {id} of queue {queue}; it will run again: {error}", {
            outcome: outcome.kind,
            id: claim.id,
            queue: claim.queue,
            error,
          });
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }
}
