import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import type { PageRequest } from "../../domain/page.js";
import type { EnqueueOptions, JobContext } from "../../ports/queue.js";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { ServiceDeps } from "../service-deps.js";
import { importErrors } from "./import-codes.js";
import { readImportFile } from "./import-file.js";
import type { ImportJobEntity } from "./import-job-json.js";
import { IMPORT_KINDS, IMPORT_MODES, type ImportKind, type ImportMode, type ImportRowData, KIND_COLUMNS } from "./import-kinds.js";
import { type ImportRowEffects, acctKey, hostOfRow } from "./import-row-effects.js";
import type { HostPacer } from "./host-pacer.js";
import type { ImportJobRow, ImportRowRow, ImportsStore } from "./imports-store.js";

/** The queue whose jobs work an import's rows. */
export const IMPORT_QUEUE = "imports.process";

/** Imports waiting or running at once, per account. */
export const MAX_ACTIVE_IMPORTS = 3;
/** How long one run of the job works before it hands over to the next, so no run holds a worker for long. */
const RUN_BUDGET_MS = 20_000;
const ROW_BATCH = 50;
const ERRORS_SHOWN = 1000;
/** The kinds whose rows follow accounts. */
const FOLLOWING_KINDS: ReadonlySet<ImportKind> = new Set(["followers", "following", "lists"]);

/** `resumed`: queued by a start, for a job a stopped process was working. */
const ProcessJob = z.object({ jobId: z.string(), resumed: z.boolean().optional() });

export interface NewImport {
  readonly kind: ImportKind;
  readonly mode: ImportMode;
  readonly file: Blob;
  readonly fileName: string | null;
}

/**
 * CSV imports as jobs: an upload is read and checked at once and kept as rows
 * in PENDING; a start (only from PENDING) moves it to PROCESSING and queues it;
 * the queue works its rows in order, each applied and then its outcome written
 * with the job's cursor in one transaction, so a run after a crash goes on
 * from the first row without an outcome. A row applied again in that case
 * is applied by idempotent effects ({@link ImportRowEffects}), so no row takes
 * effect twice and none is left out.
 */
export class ImportService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "clock" | "ids" | "queue" | "config">,
    private readonly store: ImportsStore,
    private readonly effects: ImportRowEffects,
    private readonly pacer: HostPacer,
  ) {}

  async create(accountId: string, input: NewImport): Promise<ImportJobEntity> {
    if ((await this.store.countActive(accountId)) >= MAX_ACTIVE_IMPORTS) throw new KithError(importErrors["import.too_many_active"]);
    const parsed = await readImportFile(input.kind, input.file);
    const id = this.deps.ids.next("importJob");
    const seen = new Map<string, number>();
    const rows: ImportRowRow[] = parsed.map((row, index) => {
      const key = this.#keyOf(input.kind, row.data);
      const earlier = seen.get(key);
      if (earlier === undefined) seen.set(key, index + 1);
      return {
        job_id: id,
        row_index: index + 1,
        line: row.line,
        data: JSON.stringify(row.data),
        duplicate_of: earlier ?? null,
        attempts: 0,
        outcome: null,
        reason: null,
      };
    });
    const job: ImportJobRow = {
      id,
      account_id: accountId,
      kind: input.kind,
      mode: input.mode,
      state: "PENDING",
      file_name: input.fileName,
      total_rows: rows.length,
      cursor: 0,
      pruned: false,
      imported: 0,
      skipped: 0,
      failed: 0,
      created_at: this.deps.clock.now().toISOString(),
      started_at: null,
      finished_at: null,
    };
    await this.store.insertJob(job, rows);
    return this.#render(job, new Map(rows.map((row) => [row.row_index, row])));
  }

  #keyOf(kind: ImportKind, data: ImportRowData): string {
    const ownHost = new URL(this.deps.config.origin).host;
    return KIND_COLUMNS[kind].key.map((field) => (field === "acct" ? acctKey(data.acct ?? "", ownHost) : (data[field] ?? ""))).join("\n");
  }

  /** PENDING to PROCESSING, and queued; 409 from any other state. */
  async start(accountId: string, id: string): Promise<ImportJobEntity> {
    await this.#own(accountId, id);
    const started = await this.store.transaction(async (trx) => {
      if (!(await this.store.start(trx, id, accountId, this.deps.clock.now().toISOString()))) return false;
      await this.#enqueue(id, trx);
      return true;
    });
    if (!started) throw new KithError(importErrors["import.not_pending"]);
    return this.get(accountId, id);
  }

  #enqueue(jobId: string, db?: EnqueueOptions["db"]) {
    return this.deps.queue.enqueue(IMPORT_QUEUE, { jobId }, { orderingKey: `import:${jobId}`, ...(db !== undefined && { db }) });
  }

  async list(accountId: string, page: PageRequest): Promise<ImportJobEntity[]> {
    const jobs = await this.store.page(accountId, page);
    return Promise.all(jobs.map((job) => this.#renderWithErrors(job)));
  }

  async get(accountId: string, id: string): Promise<ImportJobEntity> {
    return this.#renderWithErrors(await this.#own(accountId, id));
  }

  async #own(accountId: string, id: string): Promise<ImportJobRow> {
    const job = await this.store.find(id);
    if (!job || job.account_id !== accountId) throw new KithError(importErrors["import.not_found"]);
    return job;
  }

  async #renderWithErrors(job: ImportJobRow): Promise<ImportJobEntity> {
    const rows = await this.store.rowsWithReasons(job.id, ERRORS_SHOWN);
    return this.#render(job, new Map(rows.map((row) => [row.row_index, row])));
  }

  #render(job: ImportJobRow, rows: ReadonlyMap<number, ImportRowRow>): ImportJobEntity {
    const errors = [...rows.values()].flatMap((row) => {
      const outcome = row.outcome;
      if (row.reason === null || (outcome !== "skipped" && outcome !== "failed")) return [];
      const data = JSON.parse(row.data) as ImportRowData;
      return [
        {
          row: row.line,
          account: data.acct ?? data.domain ?? data.uri ?? null,
          outcome: outcome as "skipped" | "failed",
          reason: row.reason,
        },
      ];
    });
    return {
      id: job.id,
      type: z.enum(IMPORT_KINDS).parse(job.kind),
      mode: z.enum(IMPORT_MODES).parse(job.mode),
      state: z.enum(["PENDING", "PROCESSING", "FINISHED"]).parse(job.state),
      file_name: job.file_name,
      created_at: job.created_at,
      started_at: job.started_at,
      finished_at: job.finished_at,
      progress: { processed: Number(job.cursor), total: Number(job.total_rows) },
      results: { imported: Number(job.imported), skipped: Number(job.skipped), failed: Number(job.failed) },
      errors,
    };
  }

  /**
   * One run of the queue's job: an overwrite's pruning first, then rows from
   * the cursor on, for a while; the rest is handed to a job queued next.
   */
  async process(payload: unknown, context: Pick<JobContext, "signal" | "attempt">): Promise<void> {
    const { jobId, resumed } = ProcessJob.parse(payload);
    let job = await this.store.find(jobId);
    if (job?.state !== "PROCESSING") return;
    const kind = z.enum(IMPORT_KINDS).parse(job.kind);
    // A run after a crash: the Follows of the rows done before it may have been lost with the process before they left.
    if ((resumed || context.attempt > 1) && Number(job.cursor) > 0 && FOLLOWING_KINDS.has(kind)) {
      await this.effects.resendWaitingFollows(job.account_id);
    }
    if (job.mode === "overwrite" && !readFlag(job.pruned)) {
      const data = (await this.store.allData(jobId)).map((text) => JSON.parse(text) as ImportRowData);
      await this.effects.prune(job.account_id, kind, data);
      await this.store.markPruned(jobId);
    }
    const until = this.deps.clock.now().getTime() + RUN_BUDGET_MS;
    let cursor = Number(job.cursor);
    for (;;) {
      const rows = await this.store.rowsAfter(jobId, cursor, ROW_BATCH);
      if (rows.length === 0) {
        await this.store.finish(jobId, this.deps.clock.now().toISOString());
        return;
      }
      for (const row of rows) {
        if (context.signal.aborted || this.deps.clock.now().getTime() > until) {
          await this.#enqueue(jobId);
          return;
        }
        const result = await this.#applyRow(job, kind, row);
        const reason = result.outcome === "imported" ? null : result.reason;
        // Another run moved the cursor: it has the job now.
        if (!(await this.store.recordOutcome(jobId, cursor, row.row_index, result.outcome, reason))) return;
        cursor = row.row_index;
      }
      job = (await this.store.find(jobId)) ?? job;
    }
  }

  async #applyRow(job: ImportJobRow, kind: ImportKind, row: ImportRowRow) {
    if (row.duplicate_of !== null) return { outcome: "skipped", reason: `Repeats an earlier row` } as const;
    const data = JSON.parse(row.data) as ImportRowData;
    await this.pacer.wait(hostOfRow(kind, data, this.effects.ownHost));
    await this.store.markAttempt(job.id, row.row_index);
    return this.effects.apply(job.account_id, kind, data, { resumed: Number(row.attempts) > 0 });
  }

  /** At start: the jobs under way are queued again (a queue kept in memory lost them; a durable one has them already). */
  async recover(): Promise<void> {
    for (const id of await this.store.processingIds()) {
      await this.deps.queue.enqueue(
        IMPORT_QUEUE,
        { jobId: id, resumed: true },
        { orderingKey: `import:${id}`, deduplicationKey: `import:${id}` },
      );
    }
  }
}
