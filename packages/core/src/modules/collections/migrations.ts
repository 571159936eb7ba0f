import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

const account: ColumnSpec = { type: "text", references: "accounts(id)", onDelete: "cascade" };

/** Curated collections of accounts (Mastodon's Collections), and the accounts in each. */
export const collectionMigrations: readonly MigrationSpec[] = [
  {
    name: "collections_0001_collections",
    tables: [
      {
        name: "account_collections",
        columns: {
          id: { type: "text" },
          account_id: account,
          name: { type: "text" },
          description: { type: "text" },
          language: { type: "text", nullable: true },
          tag_id: { type: "text", nullable: true, references: "tags(id)", onDelete: "set null" },
          sensitive: { type: "bool" },
          discoverable: { type: "bool" },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [{ name: "account_collections_account_idx", columns: ["account_id", "id"] }],
      },
      {
        name: "account_collection_items",
        columns: {
          id: { type: "text" },
          collection_id: { type: "text", references: "account_collections(id)", onDelete: "cascade" },
          account_id: account,
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "account_collection_items_pair_idx", columns: ["collection_id", "account_id"], unique: true },
          { name: "account_collection_items_account_idx", columns: ["account_id"] },
        ],
      },
    ],
  },
];
