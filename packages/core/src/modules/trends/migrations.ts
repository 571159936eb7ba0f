import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Moderators' reviews of trends: a rejected hashtag, status or link leaves the public trends. */
export const trendMigrations: readonly MigrationSpec[] = [
  {
    name: "trends_0001_reviews",
    tables: [
      {
        name: "trend_reviews",
        columns: {
          /** `tag`, `status` or `link` (a preview card). */
          kind: { type: "text" },
          target_id: { type: "text" },
          /** `approved` or `rejected`. */
          state: { type: "text" },
          reviewed_by_id: { type: "text", nullable: true },
          reviewed_at: { type: "timestamp" },
        },
        primaryKey: ["kind", "target_id"],
        withoutRowid: true,
      },
    ],
  },
];
