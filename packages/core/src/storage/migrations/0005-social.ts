import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0005: the social core. Profiles, relationships (follows, follow
 * requests, blocks, mutes, domain blocks, notes), statuses and what hangs off
 * them (edits, mentions, tags, favourites, bookmarks, pins, highlights,
 * subscriptions, polls), media attachments, the home feed, lists, markers,
 * conversations, notifications, filters, followed tags, custom emojis and
 * idempotency keys.
 *
 * The home timeline is written on fan-out (`home_feed`): reading it is one
 * index range scan per page whatever the size of the database, which is what
 * keeps it flat from 10k to 1M statuses; see modules/timelines for the choice.
 */
const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const no: ColumnSpec = { type: "bool", default: false };
const yes: ColumnSpec = { type: "bool", default: true };
const zero: ColumnSpec = { type: "int", default: 0 };
const account: ColumnSpec = { type: "text", references: "accounts(id)" };
const status: ColumnSpec = { type: "text", references: "statuses(id)" };

export const socialMigration: MigrationSpec = {
  name: "0005_social",
  addColumns: [
    { table: "accounts", column: "fields", spec: { type: "json", default: "[]" } },
    { table: "accounts", column: "avatar_media_id", spec: optionalText },
    { table: "accounts", column: "header_media_id", spec: optionalText },
    { table: "accounts", column: "avatar_remote_url", spec: optionalText },
    { table: "accounts", column: "header_remote_url", spec: optionalText },
    { table: "accounts", column: "hide_collections", spec: no },
    { table: "accounts", column: "statuses_count", spec: zero },
    { table: "accounts", column: "followers_count", spec: zero },
    { table: "accounts", column: "following_count", spec: zero },
    { table: "accounts", column: "last_status_at", spec: optionalAt },
    { table: "accounts", column: "moved_to_account_id", spec: optionalText },
    { table: "accounts", column: "also_known_as", spec: { type: "json", default: "[]" } },
    { table: "users", column: "default_visibility", spec: { type: "text", default: "public" } },
    { table: "users", column: "default_sensitive", spec: no },
    { table: "users", column: "default_language", spec: optionalText },
    { table: "users", column: "expand_media", spec: { type: "text", default: "default" } },
    { table: "users", column: "expand_spoilers", spec: no },
  ],
  tables: [
    {
      name: "follows",
      columns: {
        id: text,
        account_id: account,
        target_account_id: account,
        show_reblogs: yes,
        notify: no,
        languages: { type: "json", nullable: true },
        uri: optionalText,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "follows_pair_idx", columns: ["account_id", "target_account_id"], unique: true },
        { name: "follows_target_idx", columns: ["target_account_id", "account_id"] },
      ],
    },
    {
      name: "follow_requests",
      columns: {
        id: text,
        account_id: account,
        target_account_id: account,
        show_reblogs: yes,
        notify: no,
        languages: { type: "json", nullable: true },
        uri: optionalText,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "follow_requests_pair_idx", columns: ["account_id", "target_account_id"], unique: true },
        { name: "follow_requests_target_idx", columns: ["target_account_id", "id"] },
      ],
    },
    {
      name: "blocks",
      columns: { id: text, account_id: account, target_account_id: account, uri: optionalText, created_at: at },
      primaryKey: ["id"],
      indexes: [
        { name: "blocks_pair_idx", columns: ["account_id", "target_account_id"], unique: true },
        { name: "blocks_target_idx", columns: ["target_account_id"] },
      ],
    },
    {
      name: "mutes",
      columns: {
        id: text,
        account_id: account,
        target_account_id: account,
        hide_notifications: yes,
        expires_at: optionalAt,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "mutes_pair_idx", columns: ["account_id", "target_account_id"], unique: true },
        { name: "mutes_target_idx", columns: ["target_account_id"] },
      ],
    },
    {
      name: "account_domain_blocks",
      columns: { id: text, account_id: account, domain: text, created_at: at },
      primaryKey: ["id"],
      indexes: [{ name: "account_domain_blocks_pair_idx", columns: ["account_id", "domain"], unique: true }],
    },
    {
      name: "account_notes",
      columns: { account_id: account, target_account_id: account, comment: text, updated_at: at },
      primaryKey: ["account_id", "target_account_id"],
    },
    {
      name: "statuses",
      columns: {
        id: text,
        account_id: account,
        /** ActivityPub id; null for local statuses, whose URI derives from the origin. */
        uri: optionalText,
        url: optionalText,
        local: yes,
        in_reply_to_id: { type: "text", nullable: true },
        in_reply_to_account_id: optionalText,
        reblog_of_id: { type: "text", nullable: true, references: "statuses(id)" },
        conversation_id: optionalText,
        /** The source as written (plain text); `content` is the rendered, sanitised HTML. */
        text: { type: "text", default: "" },
        content: { type: "text", default: "" },
        spoiler_text: { type: "text", default: "" },
        sensitive: no,
        visibility: { type: "text", default: "public" },
        language: optionalText,
        application_id: optionalText,
        replies_count: zero,
        reblogs_count: zero,
        favourites_count: zero,
        created_at: at,
        updated_at: at,
        edited_at: optionalAt,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "statuses_account_idx", columns: ["account_id", "id"] },
        { name: "statuses_uri_idx", columns: ["uri"], unique: true },
        { name: "statuses_reply_idx", columns: ["in_reply_to_id", "id"] },
        { name: "statuses_reblog_idx", columns: ["reblog_of_id", "account_id"], unique: true },
        { name: "statuses_conversation_idx", columns: ["conversation_id", "id"] },
        { name: "statuses_public_idx", columns: ["visibility", "local", "id"] },
      ],
    },
    {
      name: "status_edits",
      columns: {
        id: text,
        status_id: status,
        account_id: account,
        text,
        content: text,
        spoiler_text: text,
        sensitive: no,
        /** JSON array of media attachment ids as they were at this version. */
        media_ids: { type: "json", default: "[]" },
        /** JSON array of poll option titles at this version, or null. */
        poll_options: { type: "json", nullable: true },
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "status_edits_status_idx", columns: ["status_id", "id"] }],
    },
    {
      name: "mentions",
      columns: { status_id: status, account_id: account, silent: no, created_at: at },
      primaryKey: ["status_id", "account_id"],
      indexes: [{ name: "mentions_account_idx", columns: ["account_id", "status_id"] }],
    },
    {
      name: "tags",
      columns: {
        id: text,
        /** Lower-cased and NFKC-normalised; unique. */
        name: text,
        display_name: text,
        usable: yes,
        trendable: yes,
        listable: yes,
        last_status_at: optionalAt,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "tags_name_idx", columns: ["name"], unique: true }],
    },
    {
      name: "status_tags",
      columns: { tag_id: { type: "text", references: "tags(id)" }, status_id: status },
      primaryKey: ["tag_id", "status_id"],
      indexes: [{ name: "status_tags_status_idx", columns: ["status_id"] }],
    },
    {
      name: "favourites",
      columns: { id: text, account_id: account, status_id: status, uri: optionalText, created_at: at },
      primaryKey: ["id"],
      indexes: [
        { name: "favourites_pair_idx", columns: ["account_id", "status_id"], unique: true },
        { name: "favourites_status_idx", columns: ["status_id", "id"] },
      ],
    },
    {
      name: "bookmarks",
      columns: { id: text, account_id: account, status_id: status, created_at: at },
      primaryKey: ["id"],
      indexes: [{ name: "bookmarks_pair_idx", columns: ["account_id", "status_id"], unique: true }],
    },
    {
      name: "status_pins",
      columns: { id: text, account_id: account, status_id: status, created_at: at },
      primaryKey: ["id"],
      indexes: [{ name: "status_pins_pair_idx", columns: ["account_id", "status_id"], unique: true }],
    },
    {
      name: "status_highlights",
      columns: { id: text, root_status_id: status, status_id: status, account_id: account, created_at: at },
      primaryKey: ["id"],
      indexes: [
        { name: "status_highlights_status_idx", columns: ["status_id"], unique: true },
        { name: "status_highlights_root_idx", columns: ["root_status_id", "id"] },
      ],
    },
    {
      name: "status_subscriptions",
      columns: { id: text, account_id: account, status_id: status, created_at: at },
      primaryKey: ["id"],
      indexes: [
        { name: "status_subscriptions_pair_idx", columns: ["account_id", "status_id"], unique: true },
        { name: "status_subscriptions_status_idx", columns: ["status_id"] },
      ],
    },
    {
      name: "conversation_mutes",
      columns: { account_id: account, conversation_id: text, created_at: at },
      primaryKey: ["account_id", "conversation_id"],
    },
    {
      name: "polls",
      columns: {
        id: text,
        status_id: status,
        account_id: account,
        /** JSON array of option titles. */
        options: { type: "json" },
        /** JSON array of vote counts, one per option. */
        cached_tallies: { type: "json" },
        multiple: no,
        hide_totals: no,
        votes_count: zero,
        voters_count: zero,
        expires_at: optionalAt,
        /** When the "poll ended" notifications were sent. */
        closed_at: optionalAt,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "polls_status_idx", columns: ["status_id"], unique: true },
        { name: "polls_expires_idx", columns: ["expires_at"] },
      ],
    },
    {
      name: "poll_votes",
      columns: {
        id: text,
        poll_id: { type: "text", references: "polls(id)" },
        account_id: account,
        choice: { type: "int" },
        uri: optionalText,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "poll_votes_choice_idx", columns: ["poll_id", "account_id", "choice"], unique: true },
        { name: "poll_votes_account_idx", columns: ["account_id"] },
      ],
    },
    {
      name: "media_attachments",
      columns: {
        id: text,
        account_id: account,
        status_id: { type: "text", nullable: true, references: "statuses(id)", onDelete: "set null" },
        /** Mastodon's media type: image, gifv, video, audio or unknown. */
        type: { type: "text", default: "unknown" },
        /** The spec's upload type: IMAGE, VIDEO, AUDIO or DOCUMENT. */
        upload_type: text,
        /** JSON array of tags such as Avatar, Header, Status. */
        tags: { type: "json", default: "[]" },
        /** awaiting_upload, submitted, in_progress, completed, failed or unsupported. */
        state: text,
        content_type: optionalText,
        declared_content_type: optionalText,
        /** The client's file name, for display only: never part of a storage key. */
        file_name: optionalText,
        size_bytes: { type: "bigint", default: 0 },
        original_key: optionalText,
        file_key: optionalText,
        thumbnail_key: optionalText,
        /** JSON: Mastodon's `meta` (original and small sizes, focus, duration). */
        meta: { type: "json", default: "{}" },
        blurhash: optionalText,
        description: optionalText,
        /** For media of other servers: where the file lives. */
        remote_url: optionalText,
        error: optionalText,
        created_at: at,
        updated_at: at,
        processed_at: optionalAt,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "media_attachments_account_idx", columns: ["account_id", "id"] },
        { name: "media_attachments_status_idx", columns: ["status_id"] },
        { name: "media_attachments_state_idx", columns: ["state", "id"] },
      ],
    },
    {
      name: "home_feed",
      columns: {
        account_id: account,
        status_id: status,
        /** Who wrote the entry (the booster for a boost), to remove entries on unfollow, block and mute. */
        author_id: text,
        /** The boosted status for a boost, so one status is shown once however many boost it. */
        reblog_of_id: optionalText,
        created_at: at,
      },
      primaryKey: ["account_id", "status_id"],
      indexes: [{ name: "home_feed_author_idx", columns: ["account_id", "author_id"] }],
    },
    {
      name: "lists",
      columns: {
        id: text,
        account_id: account,
        title: text,
        replies_policy: { type: "text", default: "list" },
        exclusive: no,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "lists_account_idx", columns: ["account_id"] }],
    },
    {
      name: "list_accounts",
      columns: { list_id: { type: "text", references: "lists(id)" }, account_id: account, created_at: at },
      primaryKey: ["list_id", "account_id"],
      indexes: [{ name: "list_accounts_account_idx", columns: ["account_id"] }],
    },
    {
      name: "markers",
      columns: { account_id: account, timeline: text, last_read_id: text, version: zero, updated_at: at },
      primaryKey: ["account_id", "timeline"],
    },
    {
      name: "account_conversations",
      columns: {
        id: text,
        account_id: account,
        conversation_id: text,
        /** JSON array of the other participants' account ids. */
        participant_ids: { type: "json", default: "[]" },
        last_status_id: optionalText,
        unread: no,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "account_conversations_pair_idx", columns: ["account_id", "conversation_id"], unique: true },
        { name: "account_conversations_recent_idx", columns: ["account_id", "last_status_id"] },
      ],
    },
    {
      name: "notifications",
      columns: {
        id: text,
        account_id: account,
        from_account_id: account,
        type: text,
        status_id: { type: "text", nullable: true, references: "statuses(id)" },
        /** What grouped notifications (v2) fold together, e.g. `favourite-<status id>`; unique per id otherwise. */
        group_key: text,
        read_at: optionalAt,
        created_at: at,
      },
      primaryKey: ["id"],
      indexes: [
        { name: "notifications_account_idx", columns: ["account_id", "id"] },
        { name: "notifications_group_idx", columns: ["account_id", "group_key", "id"] },
        { name: "notifications_from_idx", columns: ["from_account_id"] },
      ],
    },
    {
      name: "filters",
      columns: {
        id: text,
        account_id: account,
        title: text,
        /** JSON array of contexts: home, notifications, public, thread, account. */
        context: { type: "json", default: "[]" },
        filter_action: { type: "text", default: "warn" },
        expires_at: optionalAt,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "filters_account_idx", columns: ["account_id"] }],
    },
    {
      name: "filter_keywords",
      columns: { id: text, filter_id: { type: "text", references: "filters(id)" }, keyword: text, whole_word: yes, created_at: at },
      primaryKey: ["id"],
      indexes: [{ name: "filter_keywords_filter_idx", columns: ["filter_id"] }],
    },
    {
      name: "filter_statuses",
      columns: { id: text, filter_id: { type: "text", references: "filters(id)" }, status_id: status, created_at: at },
      primaryKey: ["id"],
      indexes: [{ name: "filter_statuses_filter_idx", columns: ["filter_id", "status_id"], unique: true }],
    },
    {
      name: "tag_follows",
      columns: { id: text, account_id: account, tag_id: { type: "text", references: "tags(id)" }, created_at: at },
      primaryKey: ["id"],
      indexes: [
        { name: "tag_follows_pair_idx", columns: ["account_id", "tag_id"], unique: true },
        { name: "tag_follows_tag_idx", columns: ["tag_id"] },
      ],
    },
    {
      name: "custom_emojis",
      columns: {
        id: text,
        shortcode: text,
        /** Null for this server's emojis. */
        domain: optionalText,
        image_media_id: optionalText,
        image_remote_url: optionalText,
        uri: optionalText,
        visible_in_picker: yes,
        category: optionalText,
        disabled: no,
        created_at: at,
        updated_at: at,
      },
      primaryKey: ["id"],
      indexes: [{ name: "custom_emojis_shortcode_idx", columns: ["shortcode", "domain"], unique: true }],
    },
    {
      name: "idempotency_keys",
      columns: { account_id: account, key: text, status_id: text, created_at: at },
      primaryKey: ["account_id", "key"],
    },
  ],
};
