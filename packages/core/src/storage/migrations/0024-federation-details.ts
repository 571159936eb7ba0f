import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0024: what other servers send that was dropped before, and the
 * files of this server's custom emojis.
 *
 * - `custom_emojis` keeps its image in the blob store (`image_key`, and a
 *   still `static_key` for animated ones): an emoji belongs to the server,
 *   not to an account's media, so it counts against no one's quota and needs
 *   no account to be imported from the command line. Remote emojis keep
 *   `image_remote_url` and `uri`, as before.
 * - `statuses.quote_uri` is the post a status quotes (FEP-044f `quote`,
 *   `quoteUrl`, Misskey's `_misskey_quote`), and `quote_id` that status once it
 *   is known here. Both join the version triggers of migration 0020, which
 *   are made again with them.
 * - `status_reactions`: emoji reactions (`EmojiReact`, Misskey's and
 *   Pleroma's), one per account, status and emoji.
 * - `received_flags`: reports other servers send (`Flag`), kept for the
 *   moderation feature to act on.
 * - `remote_events`: what a received `Event` says beyond the post it is
 *   shown as (its times and place), kept for calendar events.
 * - The built-in Owner and Admin roles get the new `CustomEmojis` resource.
 */
const optionalText: ColumnSpec = { type: "text", nullable: true };
const text: ColumnSpec = { type: "text" };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };

/** The columns of `statuses` whose change makes a new version: 0020's, and the quote's. */
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
].join(", ");

/**
 * The built-in Owner and Admin roles of a server made before the `CustomEmojis` resource existed get it, as a new
 * server's first migration gives it (domain/resources.ts); a role that has it already is left as it is.
 */
function grantCustomEmojis(allAccess: string, builtIn: string): string {
  return `INSERT INTO role_permissions (role_id, resource, access)
    SELECT id, 'CustomEmojis', ${allAccess} FROM roles
    WHERE ${builtIn} AND scope = 'global' AND name IN ('Owner', 'Admin')
      AND NOT EXISTS (SELECT 1 FROM role_permissions p WHERE p.role_id = roles.id AND p.resource = 'CustomEmojis')`;
}

export const federationDetailsMigration: MigrationSpec = {
  name: "0024_federation_details",
  addColumns: [
    { table: "custom_emojis", column: "image_key", spec: optionalText },
    { table: "custom_emojis", column: "static_key", spec: optionalText },
    { table: "custom_emojis", column: "image_content_type", spec: optionalText },
    { table: "custom_emojis", column: "image_size", spec: { type: "int", nullable: true } },
    { table: "statuses", column: "quote_uri", spec: optionalText },
    { table: "statuses", column: "quote_id", spec: { type: "text", nullable: true, references: "statuses(id)", onDelete: "set null" } },
  ],
  indexes: [
    // The core index leaves NULL domains distinct: this one makes a local shortcode unique too.
    { table: "custom_emojis", name: "custom_emojis_local_shortcode_idx", columns: ["shortcode"], unique: true, where: "domain IS NULL" },
  ],
  tables: [
    {
      name: "status_reactions",
      columns: {
        id: text,
        status_id: { type: "text", references: "statuses(id)" },
        account_id: { type: "text", references: "accounts(id)" },
        /** The emoji: a Unicode one as written, or a custom one's shortcode without colons. */
        name: text,
        custom_emoji_id: { type: "text", nullable: true, references: "custom_emojis(id)", onDelete: "set null" },
        /** The id of the activity, which its Undo names. */
        uri: optionalText,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "status_reactions_once_idx", columns: ["account_id", "status_id", "name"], unique: true },
        { name: "status_reactions_status_idx", columns: ["status_id"] },
        { name: "status_reactions_uri_idx", columns: ["uri"], unique: true, where: "uri IS NOT NULL" },
      ],
    },
    {
      name: "received_flags",
      columns: {
        id: text,
        /** The actor that sent it (Mastodon sends reports as its instance actor). */
        account_id: { type: "text", references: "accounts(id)" },
        target_account_id: { type: "text", references: "accounts(id)" },
        /** JSON array of the ids of the reported statuses known here. */
        status_ids: { type: "json", default: "[]" },
        comment: { type: "text", default: "" },
        uri: optionalText,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "received_flags_target_idx", columns: ["target_account_id"] },
        // A Flag names one or more accounts: one report each, as Mastodon keeps them.
        { name: "received_flags_uri_idx", columns: ["uri", "target_account_id"], unique: true, where: "uri IS NOT NULL" },
      ],
    },
    {
      name: "remote_events",
      columns: {
        status_id: { type: "text", references: "statuses(id)" },
        name: text,
        starts_at: optionalAt,
        ends_at: optionalAt,
        /** The place's name or address, as the event says. */
        location: optionalText,
        url: optionalText,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["status_id"],
      indexes: [{ name: "remote_events_starts_idx", columns: ["starts_at"] }],
    },
  ],
  raw: {
    sqlite: [
      grantCustomEmojis(`'["Read","Add","Modify","Delete"]'`, "built_in <> 0"),
      "DROP TRIGGER statuses_version",
      `CREATE TRIGGER statuses_version AFTER UPDATE OF ${VERSIONED_STATUS_COLUMNS} ON statuses BEGIN
      UPDATE statuses SET version = old.version + 1 WHERE id = new.id;
    END`,
    ],
    postgres: [
      grantCustomEmojis(`'["Read","Add","Modify","Delete"]'::jsonb`, "built_in"),
      "DROP TRIGGER statuses_version ON statuses",
      `CREATE TRIGGER statuses_version BEFORE UPDATE OF ${VERSIONED_STATUS_COLUMNS} ON statuses
      FOR EACH ROW EXECUTE FUNCTION next_row_version()`,
    ],
  },
};
