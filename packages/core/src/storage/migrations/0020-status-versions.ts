import type { MigrationSpec } from "./ddl.js";

/**
 * The columns of `statuses` whose change makes a new version: all but the key,
 * the three counters and the version itself. A column added to `statuses`
 * later belongs here too (in a new migration that makes the triggers again).
 */
const VERSIONED_COLUMNS = [
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
].join(", ");

/**
 * Migration 0020: `statuses.version`, a number the database itself raises
 * whenever an update names any column but the counters (`replies_count`,
 * `reblogs_count`, `favourites_count`). A renderer that kept a post's row can
 * then read the version and the counters alone and know whether what it kept
 * is still the row, from any process, without reading the text again
 * (kept-status-rows.ts); `updated_at` could not say so for two edits in the
 * same millisecond. The triggers fire only for updates that name such a
 * column (edits), never for a counter's, so a like costs what it did.
 *
 * SQLite cannot change the row a trigger fires for, so its trigger updates
 * the row again after the edit; that update names `version` alone and fires
 * nothing further. PostgreSQL sets it in the row being written.
 */
export const statusVersionsMigration: MigrationSpec = {
  addColumns: [{ table: "statuses", column: "version", spec: { type: "int", default: 0 } }],
  raw: {
    sqlite: [
      `CREATE TRIGGER statuses_version AFTER UPDATE OF ${VERSIONED_COLUMNS} ON statuses BEGIN
      UPDATE statuses SET version = old.version + 1 WHERE id = new.id;
    END`,
    ],
    postgres: [
      `CREATE FUNCTION statuses_next_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.version := OLD.version + 1;
        RETURN NEW;
      END
      $$`,
      `CREATE TRIGGER statuses_version BEFORE UPDATE OF ${VERSIONED_COLUMNS} ON statuses
      FOR EACH ROW EXECUTE FUNCTION statuses_next_version()`,
    ],
  },
};
