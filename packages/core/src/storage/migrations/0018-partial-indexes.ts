import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0018: four indexes made partial, `WHERE <column> IS NOT NULL`.
 * Each is on a column that is null for most rows (a local post has no `uri`,
 * an original no `reblog_of_id`, a top-level post no `in_reply_to_id`), yet
 * every post wrote an entry into each of them, and every home-feed row into
 * `home_feed_reblog_idx`. Every query using them looks a value up with `=`
 * or `IN` (which implies not null), so they serve the same queries; the
 * unique ones still refuse a second post with the same uri or a second boost
 * of a post by the same account. Measured on SQLite, writing a post with its
 * ten home-feed rows took 0.51-0.57 ms of CPU instead of 0.72-0.78 ms.
 *
 * Queries asking for `reblog_of_id IS NULL` can no longer use the boost
 * index, which SQLite (without statistics) chose for them and then read
 * nearly every post through: at 200k posts, counting the local posts went
 * from 430 to 37 ms and an account's posts without boosts from 1.9 to
 * 0.04 ms, now served by other indexes.
 */
export const partialIndexesMigration: MigrationSpec = {
  name: "0018_partial_indexes",
  dropIndexes: ["statuses_uri_idx", "statuses_reply_idx", "statuses_reblog_idx", "home_feed_reblog_idx"],
  indexes: [
    { table: "statuses", name: "statuses_uri_idx", columns: ["uri"], unique: true, where: "uri IS NOT NULL" },
    { table: "statuses", name: "statuses_reply_idx", columns: ["in_reply_to_id", "id"], where: "in_reply_to_id IS NOT NULL" },
    {
      table: "statuses",
      name: "statuses_reblog_idx",
      columns: ["reblog_of_id", "account_id"],
      unique: true,
      where: "reblog_of_id IS NOT NULL",
    },
    {
      table: "home_feed",
      name: "home_feed_reblog_idx",
      columns: ["reblog_of_id", "account_id"],
      where: "reblog_of_id IS NOT NULL",
    },
  ],
};
