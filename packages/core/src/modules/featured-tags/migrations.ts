import type { MigrationSpec } from "../../ports/migration-spec.js";

/** The hashtags each account features on its profile. */
export const featuredTagMigrations: readonly MigrationSpec[] = [
  {
    name: "featured_tags_0001_featured_tags",
    tables: [
      {
        name: "featured_tags",
        columns: {
          id: { type: "text" },
          account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          tag_id: { type: "text", references: "tags(id)", onDelete: "cascade" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "featured_tags_account_tag_idx", columns: ["account_id", "tag_id"], unique: true },
          { name: "featured_tags_tag_idx", columns: ["tag_id"] },
        ],
      },
    ],
  },
];
