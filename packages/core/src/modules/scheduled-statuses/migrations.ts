import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Statuses kept to be posted later, one row each until it is posted or cancelled. */
export const scheduledStatusMigrations: readonly MigrationSpec[] = [
  {
    name: "scheduled_statuses_0001_scheduled_statuses",
    tables: [
      {
        name: "scheduled_statuses",
        columns: {
          id: { type: "text" },
          account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          scheduled_at: { type: "timestamp" },
          /** What the status is posted with, as the posting service takes it (JSON text). */
          params: { type: "text" },
          /** The `Idempotency-Key` it was made with: the same key from the same account answers with it again. */
          idempotency_key: { type: "text", nullable: true },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "scheduled_statuses_account_idx", columns: ["account_id", "id"] },
          { name: "scheduled_statuses_account_time_idx", columns: ["account_id", "scheduled_at"] },
          {
            name: "scheduled_statuses_idempotency_idx",
            columns: ["account_id", "idempotency_key"],
            unique: true,
            where: "idempotency_key IS NOT NULL",
          },
        ],
      },
    ],
  },
];
