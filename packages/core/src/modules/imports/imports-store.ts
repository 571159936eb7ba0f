import type { Kysely } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import type { Storage } from "../../ports/storage.js";
import type { Database } from "../../ports/storage-schema.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";

export type ImportState = "PENDING" | "PROCESSING" | "FINISHED";
export type RowOutcome = "imported" | "skipped" | "failed";

export interface ImportJobRow {
  readonly id: string;
  readonly account_id: string;
  readonly kind: string;
  readonly mode: string;
  readonly state: string;
  readonly file_name: string | null;
  readonly total_rows: number;
  readonly cursor: number;
  /** As the engine returns it (true or 1); read with `readFlag`. */
  readonly pruned: boolean | number;
  readonly imported: number;
  readonly skipped: number;
  readonly failed: number;
  readonly created_at: string;
  readonly started_at: string | null;
  readonly finished_at: string | null;
}

export interface ImportRowRow {
  readonly job_id: string;
  readonly row_index: number;
  readonly line: number;
  readonly data: string;
  readonly duplicate_of: number | null;
  readonly attempts: number;
  readonly outcome: string | null;
  readonly reason: string | null;
}

type ImportTables = { import_jobs: ImportJobRow; import_rows: ImportRowRow };

const ROW_INSERT_BATCH = 200;
const ACTIVE_STATES: readonly ImportState[] = ["PENDING", "PROCESSING"];

/** The imports module's SQL, and the only place it has any. */
export class ImportsStore {
  readonly #storage: Storage;

  constructor(storage: Storage) {
    this.#storage = storage;
  }

  #db(db: Kysely<Database> = this.#storage.db): Kysely<ImportTables> {
    // The core's schema type knows the core's tables; the module adds its own.
    return db.withTables<ImportTables>() as unknown as Kysely<ImportTables>;
  }

  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.#storage.transaction(work);
  }

  /** A new job with its rows, in one transaction. */
  async insertJob(job: ImportJobRow, rows: readonly ImportRowRow[]): Promise<void> {
    await this.transaction(async (trx) => {
      await this.#db(trx).insertInto("import_jobs").values(job).execute();
      for (let start = 0; start < rows.length; start += ROW_INSERT_BATCH) {
        await this.#db(trx)
          .insertInto("import_rows")
          .values(rows.slice(start, start + ROW_INSERT_BATCH))
          .execute();
      }
    });
  }

  find(id: string): Promise<ImportJobRow | undefined> {
    return this.#db().selectFrom("import_jobs").selectAll().where("id", "=", id).executeTakeFirst();
  }

  page(accountId: string, page: PageRequest): Promise<ImportJobRow[]> {
    const query = this.#db().selectFrom("import_jobs").selectAll().where("account_id", "=", accountId);
    return fetchIdPage(query, "id", page);
  }

  async countActive(accountId: string): Promise<number> {
    const row = await this.#db()
      .selectFrom("import_jobs")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .where("account_id", "=", accountId)
      .where("state", "in", ACTIVE_STATES)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** PENDING to PROCESSING, in `trx`; false when the job was not PENDING. */
  async start(trx: Kysely<Database>, id: string, accountId: string, now: string): Promise<boolean> {
    const result = await this.#db(trx)
      .updateTable("import_jobs")
      .set({ state: "PROCESSING", started_at: now })
      .where("id", "=", id)
      .where("account_id", "=", accountId)
      .where("state", "=", "PENDING")
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The rows after `afterIndex`, in order. */
  rowsAfter(jobId: string, afterIndex: number, limit: number): Promise<ImportRowRow[]> {
    return this.#db()
      .selectFrom("import_rows")
      .selectAll()
      .where("job_id", "=", jobId)
      .where("row_index", ">", afterIndex)
      .orderBy("row_index")
      .limit(limit)
      .execute();
  }

  /** Every row's data, for an overwrite to know what the file holds. */
  async allData(jobId: string): Promise<string[]> {
    const rows = await this.#db().selectFrom("import_rows").select("data").where("job_id", "=", jobId).orderBy("row_index").execute();
    return rows.map((row) => row.data);
  }

  /**
   * Writes a row's outcome and moves the cursor onto it, counting the
   * outcome, in one transaction; false (and nothing written) when the cursor
   * is no longer where the caller read it (another run of the job moved it).
   */
  async recordOutcome(jobId: string, fromCursor: number, rowIndex: number, outcome: RowOutcome, reason: string | null): Promise<boolean> {
    return this.transaction(async (trx) => {
      const moved = await this.#db(trx)
        .updateTable("import_jobs")
        .set((eb) => ({ cursor: rowIndex, [outcome]: eb(outcome, "+", 1) }))
        .where("id", "=", jobId)
        .where("cursor", "=", fromCursor)
        .where("state", "=", "PROCESSING")
        .executeTakeFirst();
      if (Number(moved.numUpdatedRows) === 0) return false;
      await this.#db(trx)
        .updateTable("import_rows")
        .set({ outcome, reason })
        .where("job_id", "=", jobId)
        .where("row_index", "=", rowIndex)
        .execute();
      return true;
    });
  }

  /** Counts the start of applying a row, before anything of it is done. */
  async markAttempt(jobId: string, rowIndex: number): Promise<void> {
    await this.#db()
      .updateTable("import_rows")
      .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
      .where("job_id", "=", jobId)
      .where("row_index", "=", rowIndex)
      .execute();
  }

  async markPruned(jobId: string): Promise<void> {
    await this.#db().updateTable("import_jobs").set({ pruned: true }).where("id", "=", jobId).execute();
  }

  async finish(jobId: string, now: string): Promise<void> {
    await this.#db()
      .updateTable("import_jobs")
      .set({ state: "FINISHED", finished_at: now })
      .where("id", "=", jobId)
      .where("state", "=", "PROCESSING")
      .execute();
  }

  /** The rows given a reason (failed or skipped), in order, at most `limit`. */
  rowsWithReasons(jobId: string, limit: number): Promise<ImportRowRow[]> {
    return this.#db()
      .selectFrom("import_rows")
      .selectAll()
      .where("job_id", "=", jobId)
      .where("reason", "is not", null)
      .orderBy("row_index")
      .limit(limit)
      .execute();
  }

  /** The jobs under way, for a start to queue again. */
  async processingIds(): Promise<string[]> {
    const rows = await this.#db().selectFrom("import_jobs").select("id").where("state", "=", "PROCESSING").execute();
    return rows.map((row) => row.id);
  }
}
