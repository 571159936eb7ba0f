import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Migration 0004: when an account was marked sensitive (its media shown behind a warning), as Mastodon's `sensitized_at`. */
export const adminAccountsMigration: MigrationSpec = {
  name: "0004_admin_accounts",
  addColumns: [{ table: "accounts", column: "sensitized_at", spec: { type: "timestamp", nullable: true } }],
};
