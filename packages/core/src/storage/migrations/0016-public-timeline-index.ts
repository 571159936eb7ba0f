import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0016: `statuses (visibility, id)`, for the public and hashtag
 * timelines. They ask for public statuses newest first, local and remote
 * together; 0005's `(visibility, local, id)` serves them only when `local`
 * is fixed, so without this index the engine read every public status and
 * sorted them for each page (measured by `pnpm bench`: 33 ms for the ids of
 * a 40-status page at 20k statuses on SQLite; 1 ms with it, and flat as the
 * database grows, since the walk stops after the page is full).
 */
export const publicTimelineIndexMigration: MigrationSpec = {
  name: "0016_public_timeline_index",
  indexes: [{ table: "statuses", name: "statuses_visibility_id_idx", columns: ["visibility", "id"] }],
};
