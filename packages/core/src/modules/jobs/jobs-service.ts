import { KithError } from "../../domain/errors.js";
import type {
  DailyJobStats,
  JobCounts,
  JobListQuery,
  JobRecord,
  JobStatus,
  QueueBackendInfo,
  QueueConfig,
  QueueConfigChanges,
  WorkerProcess,
} from "../../ports/queue.js";
import type { ServiceDeps } from "../service-deps.js";

/** Days `statsPerDay` may look back. */
export const MAX_STATS_DAYS = 90;
/** Bounds an administrator may set on a queue's workers. */
export const WORKER_LIMITS = { maxRetries: 100, concurrency: 100, description: 500 } as const;
/** Submitted jobs looked at to find a queue's oldest; beyond this, the latency is at least the age found. */
const LATENCY_SCAN_LIMIT = 10_000;
const LATENCY_PAGE = 500;

export interface QueueSummary {
  readonly queue: string;
  readonly counts: JobCounts;
  /** How long the oldest job ready to run has waited, in milliseconds; null when none waits. */
  readonly latencyMs: number | null;
  /**
   * The newest job waiting to be retried, with how it last failed (the error's first line): a queue whose jobs all
   * wait here, failing the same way, is stalled. Null when none waits for a retry.
   */
  readonly lastFailure: { readonly jobId: string; readonly tries: number; readonly error: string } | null;
  readonly worker: QueueConfig;
}

export interface JobTotals {
  readonly finished: number;
  readonly failed: number;
  readonly queues: readonly { readonly queue: string; readonly finished: number; readonly failed: number }[];
}

/**
 * The jobs administration area: what the queue holds, its statistics and
 * worker configuration, and the transitions administrators may make (retry,
 * delete, clear). Refusals come from the queue port as `job.*` and
 * `queue.*` errors.
 */
export class JobsService {
  constructor(private readonly deps: Pick<ServiceDeps, "queue" | "clock">) {}

  /** Jobs newest first, optionally of one queue and status. */
  list(query: JobListQuery): Promise<JobRecord[]> {
    return this.deps.queue.list(query);
  }

  /** Dead letters: jobs whose payload could not be read. */
  deadLetters(query: Omit<JobListQuery, "status">): Promise<JobRecord[]> {
    return this.deps.queue.list({ ...query, status: "dlq" });
  }

  async get(id: string): Promise<JobRecord> {
    const job = await this.deps.queue.get(id);
    if (!job) throw new KithError("job.not_found");
    return job;
  }

  /** Jobs per status, of one queue or of all. */
  counts(queue?: string): Promise<JobCounts> {
    return this.deps.queue.counts(queue);
  }

  /** Finished and failed jobs now held, in total and per known queue. */
  async totals(): Promise<JobTotals> {
    const [all, configs] = await Promise.all([this.deps.queue.counts(), this.deps.queue.queues()]);
    const queues = await Promise.all(
      configs.map(async ({ name }) => {
        const counts = await this.deps.queue.counts(name);
        return { queue: name, finished: counts.finished, failed: counts.failed };
      }),
    );
    return { finished: all.finished, failed: all.failed, queues };
  }

  /** Finished and failed jobs per UTC day, oldest first, today included. */
  statsPerDay(days: number, queue?: string): Promise<DailyJobStats[]> {
    if (!Number.isInteger(days) || days < 1 || days > MAX_STATS_DAYS) {
      throw new KithError("request.validation_failed", {
        details: [{ field: "days", message: `Must be a whole number from 1 to ${MAX_STATS_DAYS}` }],
      });
    }
    return this.deps.queue.statsPerDay(days, queue);
  }

  /** Every known queue: its counts, how far behind it is, and its worker configuration. */
  async summary(): Promise<QueueSummary[]> {
    const configs = await this.deps.queue.queues();
    return Promise.all(
      configs.map(async (worker) => {
        const [counts, latencyMs, lastFailure] = await Promise.all([
          this.deps.queue.counts(worker.name),
          this.#latencyMs(worker.name),
          this.#lastFailure(worker.name),
        ]);
        return { queue: worker.name, counts, latencyMs, lastFailure, worker };
      }),
    );
  }

  workers(): Promise<QueueConfig[]> {
    return this.deps.queue.queues();
  }

  /** Changes a queue's worker configuration; running workers apply it at once. */
  configureWorker(queue: string, changes: QueueConfigChanges): Promise<QueueConfig> {
    const details: { field: string; message: string }[] = [];
    const { maxRetries, concurrency, description } = changes;
    if (maxRetries !== undefined && (!Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > WORKER_LIMITS.maxRetries)) {
      details.push({ field: "maxRetries", message: `Must be a whole number from 0 to ${WORKER_LIMITS.maxRetries}` });
    }
    if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > WORKER_LIMITS.concurrency)) {
      details.push({ field: "concurrency", message: `Must be a whole number from 1 to ${WORKER_LIMITS.concurrency}` });
    }
    if (description !== undefined && description.length > WORKER_LIMITS.description) {
      details.push({ field: "description", message: `At most ${WORKER_LIMITS.description} characters` });
    }
    if (details.length) throw new KithError("request.validation_failed", { details });
    return this.deps.queue.configureQueue(queue, changes);
  }

  processes(): Promise<WorkerProcess[]> {
    return this.deps.queue.processes();
  }

  backend(): Promise<QueueBackendInfo> {
    return this.deps.queue.backendInfo();
  }

  /** A failed or dead-letter job back to submitted, tries reset. */
  retry(id: string): Promise<JobRecord> {
    return this.deps.queue.retry(id);
  }

  /** Every failed job of a queue back to submitted; returns how many moved. */
  retryAll(queue: string): Promise<number> {
    return this.deps.queue.retryAll(queue);
  }

  /** Deletes one job; an active one is refused. */
  remove(id: string): Promise<void> {
    return this.deps.queue.remove(id);
  }

  /** Deletes every job of a queue in one status; `active` is refused. Returns how many. */
  clear(queue: string, status: JobStatus): Promise<number> {
    if (status === "active") throw new KithError("job.active");
    return this.deps.queue.clear(queue, status);
  }

  async #lastFailure(queue: string): Promise<QueueSummary["lastFailure"]> {
    const [job] = await this.deps.queue.list({ queue, status: "retries", limit: 1 });
    if (!job) return null;
    return { jobId: job.id, tries: job.tries, error: (job.lastError ?? "").split("\n", 1)[0] ?? "" };
  }

  /** Age of the oldest submitted job of a queue: the ports list newest first, so page to the end (bounded). */
  async #latencyMs(queue: string): Promise<number | null> {
    let oldest: JobRecord | undefined;
    let maxId: string | undefined;
    for (let seen = 0; seen < LATENCY_SCAN_LIMIT; seen += LATENCY_PAGE) {
      const page = await this.deps.queue.list({ queue, status: "submitted", limit: LATENCY_PAGE, ...(maxId && { maxId }) });
      for (const job of page) if (!oldest || job.runAt < oldest.runAt) oldest = job;
      if (page.length < LATENCY_PAGE) break;
      maxId = page.at(-1)?.id;
    }
    if (!oldest) return null;
    return Math.max(0, this.deps.clock.now().getTime() - Date.parse(oldest.runAt));
  }
}
