import type { MigrationSpec } from "@kith/core";

/** The guestbook's table, in the core's engine-neutral migration spec; applied after the core's migrations. */
export const guestbookMigrations: readonly MigrationSpec[] = [
  {
    name: "guestbook_0001_entries",
    tables: [
      {
        name: "guestbook_entries",
        columns: {
          id: { type: "text" },
          owner_account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          author_account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          text: { type: "text" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "guestbook_entries_owner_idx", columns: ["owner_account_id", "id"] },
          { name: "guestbook_entries_author_idx", columns: ["author_account_id"] },
          { name: "guestbook_entries_created_idx", columns: ["created_at"] },
        ],
      },
    ],
  },
];
