import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

const account: ColumnSpec = { type: "text", references: "accounts(id)", onDelete: "cascade" };

/** The accounts each account features on its profile (Mastodon's endorsements, once "account pins"). */
export const endorsementMigrations: readonly MigrationSpec[] = [
  {
    name: "endorsements_0001_endorsements",
    tables: [
      {
        name: "account_endorsements",
        columns: {
          id: { type: "text" },
          account_id: account,
          target_account_id: account,
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "account_endorsements_pair_idx", columns: ["account_id", "target_account_id"], unique: true },
          { name: "account_endorsements_target_idx", columns: ["target_account_id"] },
        ],
      },
    ],
  },
];
