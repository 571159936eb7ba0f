import { getLogger } from "../logging.js";
import type { Clock } from "../ports/clock.js";
import type { IdGenerator } from "../ports/ids.js";
import type { EnqueueOptions, EnqueuedJob, HandlerOptions, JobHandler, Queue } from "../ports/queue.js";

interface MemoryJob {
  readonly id: string;
  readonly queue: string;
  readonly payload: string;
  readonly maxAttempts: number;
  readonly deduplicationKey: string | undefined;
  readonly orderingKey: string | undefined;
  attempts: number;
  runAt: number;
  state: "waiting" | "active" | "finished" | "failed";
}

/** Exponential backoff with full jitter, capped at one hour. */
export function backoffDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(3_600_000, 1_000 * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * Jobs in memory, worked in process: the reference adapter for tests and for
 * embedders who accept losing queued work on a crash. Not durable.
 */
export class MemoryQueue implements Queue {
  readonly #jobs: MemoryJob[] = [];
  readonly #handlers = new Map<string, { handler: JobHandler; concurrency: number; running: number }>();
  readonly #logger = getLogger(["queue", "memory"]);
  readonly #abort = new AbortController();
  #timer: ReturnType<typeof setInterval> | undefined;
  readonly #running = new Set<Promise<void>>();

  constructor(private readonly deps: { clock: Clock; ids: IdGenerator; pollIntervalMs?: number }) {}

  async enqueue(queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<EnqueuedJob> {
    if (options.deduplicationKey) {
      const existing = this.#jobs.find(
        (job) => job.queue === queue && job.deduplicationKey === options.deduplicationKey && job.state === "waiting",
      );
      if (existing) return { id: existing.id, queue };
    }
    const job: MemoryJob = {
      id: this.deps.ids.next("job"),
      queue,
      payload: JSON.stringify(payload ?? null),
      maxAttempts: options.maxAttempts ?? 5,
      deduplicationKey: options.deduplicationKey,
      orderingKey: options.orderingKey,
      attempts: 0,
      runAt: this.deps.clock.now().getTime() + (options.delayMs ?? 0),
      state: "waiting",
    };
    this.#jobs.push(job);
    queueMicrotask(() => this.#poll());
    return { id: job.id, queue };
  }

  handle(queue: string, handler: JobHandler, options: HandlerOptions = {}): void {
    this.#handlers.set(queue, { handler, concurrency: options.concurrency ?? 1, running: 0 });
  }

  async start(): Promise<void> {
    this.#timer ??= setInterval(() => this.#poll(), this.deps.pollIntervalMs ?? 50);
    this.#timer.unref?.();
    this.#poll();
  }

  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#abort.abort();
    await Promise.allSettled([...this.#running]);
  }

  /** Jobs in a state, for tests. */
  jobs(state?: MemoryJob["state"]): readonly MemoryJob[] {
    return this.#jobs.filter((job) => state === undefined || job.state === state);
  }

  #poll(): void {
    if (!this.#timer) return;
    const now = this.deps.clock.now().getTime();
    for (const [queue, entry] of this.#handlers) {
      while (entry.running < entry.concurrency) {
        const job = this.#nextRunnable(queue, now);
        if (!job) break;
        job.state = "active";
        job.attempts += 1;
        entry.running += 1;
        const run = this.#run(job, entry.handler).finally(() => {
          entry.running -= 1;
          this.#running.delete(run);
          this.#poll();
        });
        this.#running.add(run);
      }
    }
  }

  #nextRunnable(queue: string, now: number): MemoryJob | undefined {
    const busyKeys = new Set(
      this.#jobs.filter((job) => job.queue === queue && job.state === "active" && job.orderingKey).map((job) => job.orderingKey),
    );
    const seenKeys = new Set<string>();
    for (const job of this.#jobs) {
      if (job.queue !== queue || job.state !== "waiting") continue;
      if (job.orderingKey) {
        // Only the oldest waiting job of an ordering key may run, and only when none of that key is active.
        if (busyKeys.has(job.orderingKey) || seenKeys.has(job.orderingKey)) continue;
        seenKeys.add(job.orderingKey);
      }
      if (job.runAt <= now) return job;
    }
    return undefined;
  }

  async #run(job: MemoryJob, handler: JobHandler): Promise<void> {
    try {
      await handler(JSON.parse(job.payload), { id: job.id, queue: job.queue, attempt: job.attempts, signal: this.#abort.signal });
      job.state = "finished";
    } catch (error) {
      if (job.attempts >= job.maxAttempts) {
        job.state = "failed";
        this.#logger.warn("Job {id} on {queue} failed for good: {error}", { id: job.id, queue: job.queue, error });
      } else {
        job.state = "waiting";
        job.runAt = this.deps.clock.now().getTime() + backoffDelayMs(job.attempts);
      }
    }
  }
}
