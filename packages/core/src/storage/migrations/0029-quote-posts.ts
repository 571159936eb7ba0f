import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0029: quote posts as Mastodon 4.5 and FEP-044f have them.
 *
 * - `statuses.quote_state`: where a status's quote of another stands
 *   (`pending`, `accepted`, `rejected`, `revoked`); null on a status quoting
 *   nothing, and on quotes stored before this migration, which read as accepted.
 * - `statuses.quote_policy`: who may quote the status (`public`, `followers`,
 *   `nobody`; for another server's status also `manual`, anyone asking and its
 *   author deciding). Null where none is known: nobody may quote it, as
 *   statuses written before quotes existed.
 * - `statuses.quote_authorization`: the id of the QuoteAuthorization stamp that
 *   lets the status quote another (FEP-044f), where another server gave it.
 * - `statuses.quotes_count`: accepted quotes of the status. Unlike the other
 *   counters it raises the version: it changes seldom (a quote made, revoked
 *   or deleted), and renderers then read the row again rather than learn a
 *   fourth counter.
 *
 * All four join the version triggers (migrations 0020 and 0024), made again
 * here with them: a change of them changes what the status shows.
 */

const optionalText: ColumnSpec = { type: "text", nullable: true };

/** The columns of `statuses` whose change makes a new version: 0024's and the quote's. */
const VERSIONED_STATUS_COLUMNS = [
  "account_id",
  "uri",
  "url",
  "local",
  "in_reply_to_id",
  "in_reply_to_account_id",
  "reblog_of_id",
  "conversation_id",
  "text",
  "content",
  "spoiler_text",
  "sensitive",
  "visibility",
  "language",
  "application_id",
  "created_at",
  "updated_at",
  "edited_at",
  "quote_uri",
  "quote_id",
  "quote_state",
  "quote_policy",
  "quote_authorization",
  "quotes_count",
].join(", ");

export const quotePostsMigration: MigrationSpec = {
  name: "0029_quote_posts",
  addColumns: [
    { table: "statuses", column: "quote_state", spec: optionalText },
    { table: "statuses", column: "quote_policy", spec: optionalText },
    { table: "statuses", column: "quote_authorization", spec: optionalText },
    { table: "statuses", column: "quotes_count", spec: { type: "int", default: 0 } },
  ],
  indexes: [
    // The quotes of a status, newest first: its `/quotes` list and what a revoke or a deletion finds.
    { table: "statuses", name: "statuses_quote_idx", columns: ["quote_id", "id"], where: "quote_id IS NOT NULL" },
  ],
  raw: {
    sqlite: [
      "DROP TRIGGER statuses_version",
      `CREATE TRIGGER statuses_version AFTER UPDATE OF ${VERSIONED_STATUS_COLUMNS} ON statuses BEGIN
      UPDATE statuses SET version = old.version + 1 WHERE id = new.id;
    END`,
    ],
    postgres: [
      "DROP TRIGGER statuses_version ON statuses",
      `CREATE TRIGGER statuses_version BEFORE UPDATE OF ${VERSIONED_STATUS_COLUMNS} ON statuses
      FOR EACH ROW EXECUTE FUNCTION next_row_version()`,
    ],
  },
};
