import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * The tables whose rows are kept in memory between renders (kept-rows.ts),
 * and the columns of each whose change makes a new version: all but the key,
 * the counters and the version itself. A column added to one of these tables
 * later belongs here too (in a new migration that makes the triggers again);
 * tests/storage/row-versions.test.ts fails until it does.
 */
const VERSIONED: Record<"statuses" | "accounts", readonly string[]> = {
  statuses: [
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
  ],
  accounts: [
    "username",
    "domain",
    "acct_key",
    "display_name",
    "note",
    "actor_type",
    "locked",
    "discoverable",
    "uri",
    "url",
    "created_at",
    "updated_at",
    "suspended_at",
    "silenced_at",
    "sensitized_at",
    "fields",
    "avatar_media_id",
    "header_media_id",
    "avatar_remote_url",
    "header_remote_url",
    "hide_collections",
    "moved_to_account_id",
    "also_known_as",
    "note_source",
    "indexable",
    "inbox_url",
    "shared_inbox_url",
  ],
};

const TABLES = ["statuses", "accounts"] as const;

/**
 * Migration 0020: a `version` on statuses and accounts, a number the database
 * itself raises whenever an update names any column but the counters (a
 * status's replies, boosts and favourites; an account's statuses, followers,
 * follows and last status's date). A renderer that kept a row can then read
 * the version and the counters alone and know whether what it kept is still
 * the row, from any process, without reading the text again; `updated_at`
 * could not say so for two edits in the same millisecond, nor for the writes
 * that do not set it. The triggers fire only for updates that name such a
 * column (edits, moderation), never for a counter's, so a like or a follow
 * costs what it did.
 *
 * SQLite cannot change the row a trigger fires for, so its trigger updates
 * the row again after the write; that update names `version` alone and fires
 * nothing further. PostgreSQL sets it in the row being written.
 */
export const rowVersionsMigration: MigrationSpec = {
  name: "0020_row_versions",
  addColumns: TABLES.map((table) => ({ table, column: "version", spec: { type: "int" as const, default: 0 } })),
  raw: {
    sqlite: TABLES.map(
      (table) => `CREATE TRIGGER ${table}_version AFTER UPDATE OF ${VERSIONED[table].join(", ")} ON ${table} BEGIN
      UPDATE ${table} SET version = old.version + 1 WHERE id = new.id;
    END`,
    ),
    postgres: [
      `CREATE FUNCTION next_row_version() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.version := OLD.version + 1;
        RETURN NEW;
      END
      $$`,
      ...TABLES.map(
        (table) => `CREATE TRIGGER ${table}_version BEFORE UPDATE OF ${VERSIONED[table].join(", ")} ON ${table}
      FOR EACH ROW EXECUTE FUNCTION next_row_version()`,
      ),
    ],
  },
};
