import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0011: what profiles and relationships need beyond 0005. The
 * plain-text source of a local profile's note (the `note` column holds the
 * rendered HTML that clients and other servers read), and whether the account
 * lets its public statuses be indexed by search (Mastodon's `indexable`).
 */
export const relationshipsMigration: MigrationSpec = {
  name: "0011_relationships",
  addColumns: [
    { table: "accounts", column: "note_source", spec: { type: "text", nullable: true } },
    { table: "accounts", column: "indexable", spec: { type: "bool", default: false } },
  ],
  tables: [],
};
