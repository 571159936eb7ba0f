import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0008: indexes the timelines, conversations and notifications
 * need beyond those of 0005.
 *
 * - `home_feed (status_id)` and `notifications (status_id)`: deleting a status
 *   cascades to these rows; without an index on the referencing column each
 *   deletion scans the whole table.
 * - `home_feed (reblog_of_id, account_id)`: fan-out skips a boost for readers
 *   who already have the boosted status (or another boost of it) in their feed,
 *   checked for a batch of readers in one lookup.
 * - `notifications (account_id, read_at)`: the unread count and the
 *   read/unread filter.
 */
export const timelinesMigration: MigrationSpec = {
  name: "0008_timelines",
  indexes: [
    { table: "home_feed", name: "home_feed_status_idx", columns: ["status_id"] },
    { table: "home_feed", name: "home_feed_reblog_idx", columns: ["reblog_of_id", "account_id"] },
    { table: "notifications", name: "notifications_status_idx", columns: ["status_id"] },
    { table: "notifications", name: "notifications_read_idx", columns: ["account_id", "read_at"] },
  ],
};
