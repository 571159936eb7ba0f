import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Import jobs and their rows. The rows are read from the file when it is
 * uploaded and kept, so processing needs no file and resumes after a crash at
 * the job's cursor: the row number of the last row whose outcome is written.
 */
export const importMigrations: readonly MigrationSpec[] = [
  {
    name: "imports_0001_import_jobs",
    tables: [
      {
        name: "import_jobs",
        columns: {
          id: { type: "text" },
          account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          /** followers, following, blocks, mutes, domain_blocking, bookmarks, lists. */
          kind: { type: "text" },
          /** merge or overwrite. */
          mode: { type: "text" },
          /** PENDING, PROCESSING, FINISHED. */
          state: { type: "text" },
          file_name: { type: "text", nullable: true },
          total_rows: { type: "int" },
          /** The row index of the last row whose outcome is written; 0 before the first. */
          cursor: { type: "int", default: 0 },
          /** Whether an overwrite's removal of what the file does not hold is done. */
          pruned: { type: "bool", default: false },
          imported: { type: "int", default: 0 },
          skipped: { type: "int", default: 0 },
          failed: { type: "int", default: 0 },
          created_at: { type: "timestamp" },
          started_at: { type: "timestamp", nullable: true },
          finished_at: { type: "timestamp", nullable: true },
        },
        primaryKey: ["id"],
        indexes: [{ name: "import_jobs_account_idx", columns: ["account_id", "id"] }],
      },
      {
        name: "import_rows",
        columns: {
          job_id: { type: "text", references: "import_jobs(id)", onDelete: "cascade" },
          /** 1, 2, ... in file order: the cursor's unit. */
          row_index: { type: "int" },
          /** The line of the file the row starts on, for people. */
          line: { type: "int" },
          /** The row's fields by name (JSON text). */
          data: { type: "text" },
          /** The row index of an earlier row with the same target, which this one repeats. */
          duplicate_of: { type: "int", nullable: true },
          /** Times its applying began: more than once only when a crash cut the first one short. */
          attempts: { type: "int", default: 0 },
          /** imported, skipped or failed; null until processed. */
          outcome: { type: "text", nullable: true },
          reason: { type: "text", nullable: true },
        },
        primaryKey: ["job_id", "row_index"],
      },
    ],
  },
];
