import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Annual reports ("wrapstodon"): one per account and year, generated on the queue. */
export const annualReportMigrations: readonly MigrationSpec[] = [
  {
    name: "annual-reports_0001_reports",
    tables: [
      {
        name: "annual_reports",
        columns: {
          account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          year: { type: "int" },
          /** `generating` until the job has written `data`, then `available`. */
          state: { type: "text" },
          schema_version: { type: "int" },
          data: { type: "json", nullable: true },
          viewed_at: { type: "timestamp", nullable: true },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["account_id", "year"],
      },
    ],
  },
];
