import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";
import { groupAccountsMigration } from "./group-account-store.js";
import { channelAccountsMigration } from "./channel-account-store.js";

const text: ColumnSpec = { type: "text" };
const optionalText: ColumnSpec = { type: "text", nullable: true };
const at: ColumnSpec = { type: "timestamp" };
const optionalAt: ColumnSpec = { type: "timestamp", nullable: true };
const group: ColumnSpec = { type: "text", references: "groups(id)", onDelete: "cascade" };
const account: ColumnSpec = { type: "text", references: "accounts(id)", onDelete: "cascade" };
const optionalAccount: ColumnSpec = { type: "text", nullable: true, references: "accounts(id)", onDelete: "set null" };
const pending = "status = 'pending'";

/**
 * The groups module's tables. A group's roles are not here: they are RBAC
 * roles in the group's scope (`roles.scope` = the group's id), made with
 * the group. `members_count` is kept with each change of membership, in
 * its transaction, so that no page of groups counts members.
 */
export const groupMigrations: readonly MigrationSpec[] = [
  {
    name: "groups_0001_groups",
    tables: [
      {
        name: "groups",
        columns: {
          id: text,
          /** The handle as its owner wrote it; `name_key` is its lower-case form, unique on the server. */
          name: text,
          name_key: text,
          display_name: text,
          note: text,
          join_mode: text,
          secret: { type: "bool" },
          discoverable: { type: "bool" },
          members_count: { type: "int", default: 0 },
          statuses_count: { type: "int", default: 0 },
          created_at: at,
          updated_at: at,
        },
        primaryKey: ["id"],
        indexes: [{ name: "groups_name_key_idx", columns: ["name_key"], unique: true }],
      },
      {
        name: "group_members",
        columns: { id: text, group_id: group, account_id: account, joined_at: at },
        primaryKey: ["id"],
        indexes: [
          { name: "group_members_group_account_idx", columns: ["group_id", "account_id"], unique: true },
          { name: "group_members_account_idx", columns: ["account_id", "group_id"] },
          { name: "group_members_group_id_idx", columns: ["group_id", "id"] },
        ],
      },
      {
        name: "group_bans",
        columns: { group_id: group, account_id: account, banned_by: optionalAccount, reason: optionalText, created_at: at },
        primaryKey: ["group_id", "account_id"],
        indexes: [{ name: "group_bans_account_idx", columns: ["account_id"] }],
      },
      {
        name: "group_join_requests",
        columns: {
          id: text,
          group_id: group,
          account_id: account,
          message: optionalText,
          status: text,
          decided_by: optionalAccount,
          decided_at: optionalAt,
          created_at: at,
        },
        primaryKey: ["id"],
        indexes: [
          { name: "group_join_requests_group_idx", columns: ["group_id", "status", "id"] },
          { name: "group_join_requests_pending_idx", columns: ["group_id", "account_id"], unique: true, where: pending },
          { name: "group_join_requests_account_idx", columns: ["account_id"] },
        ],
      },
      {
        name: "group_invitations",
        columns: {
          id: text,
          group_id: group,
          account_id: account,
          invited_by: optionalAccount,
          status: text,
          created_at: at,
          answered_at: optionalAt,
        },
        primaryKey: ["id"],
        indexes: [
          { name: "group_invitations_group_idx", columns: ["group_id", "status", "id"] },
          { name: "group_invitations_pending_idx", columns: ["group_id", "account_id"], unique: true, where: pending },
          { name: "group_invitations_account_idx", columns: ["account_id", "status", "id"] },
        ],
      },
      {
        name: "group_questions",
        columns: {
          id: text,
          group_id: group,
          position: { type: "int" },
          kind: text,
          question: text,
          required: { type: "bool" },
          /** JSON array of the choices (empty for a text question). */
          options: { type: "json" },
          /** JSON array of the choices an answer must hold, or null. */
          expected: { type: "json", nullable: true },
        },
        primaryKey: ["id"],
        indexes: [{ name: "group_questions_group_idx", columns: ["group_id", "position"] }],
      },
      {
        name: "group_rules",
        columns: { id: text, group_id: group, position: { type: "int" }, text, hint: text },
        primaryKey: ["id"],
        indexes: [{ name: "group_rules_group_idx", columns: ["group_id", "position"] }],
      },
      {
        name: "group_join_tokens",
        columns: {
          /** SHA-256 of the token: the token itself is only ever in the answer that issued it. */
          token_hash: text,
          group_id: group,
          account_id: account,
          expires_at: at,
          consumed_at: optionalAt,
          created_at: at,
        },
        primaryKey: ["token_hash"],
        indexes: [{ name: "group_join_tokens_expires_idx", columns: ["expires_at"] }],
      },
      {
        /** What a `group.*` notification is about: the notifications table knows statuses only. */
        name: "group_notifications",
        columns: { notification_id: { type: "text", references: "notifications(id)", onDelete: "cascade" }, group_id: group },
        primaryKey: ["notification_id"],
        indexes: [{ name: "group_notifications_group_idx", columns: ["group_id"] }],
      },
    ],
  },
  {
    name: "groups_0002_group_statuses",
    tables: [
      {
        /**
         * The statuses posted in a group. No key on `statuses`: a status's
         * deletion is heard as `status.deleted`, which takes its row here and
         * its count on the group together.
         */
        name: "group_statuses",
        columns: { status_id: text, group_id: group, account_id: text, created_at: at },
        primaryKey: ["status_id"],
        indexes: [{ name: "group_statuses_group_idx", columns: ["group_id", "status_id"] }],
      },
    ],
  },
  {
    name: "groups_0003_channels",
    tables: [
      {
        /**
         * A group's channels. `primary_of` holds the group's id on its primary
         * channel only: its unique index keeps one primary per group and finds
         * it in one step on the posting path. Usernames keep the form written;
         * their `_key` is the lower-case form the uniqueness rules compare.
         */
        name: "group_channels",
        columns: {
          id: text,
          group_id: group,
          parent_id: { type: "text", nullable: true, references: "group_channels(id)", onDelete: "cascade" },
          username: text,
          username_key: text,
          global_username: text,
          global_username_key: text,
          display_name: text,
          note: text,
          primary_of: optionalText,
          auto_subscribe: { type: "bool", default: false },
          statuses_count: { type: "int", default: 0 },
          created_at: at,
          updated_at: at,
        },
        primaryKey: ["id"],
        indexes: [
          { name: "group_channels_username_idx", columns: ["group_id", "username_key"], unique: true },
          { name: "group_channels_global_username_idx", columns: ["global_username_key"], unique: true },
          { name: "group_channels_primary_idx", columns: ["primary_of"], unique: true },
          { name: "group_channels_parent_idx", columns: ["parent_id"] },
        ],
      },
      {
        /** `group_id` is the channel's, kept here so that leaving a group ends its subscriptions in one statement. */
        name: "group_channel_subscriptions",
        columns: {
          channel_id: { type: "text", references: "group_channels(id)", onDelete: "cascade" },
          account_id: account,
          group_id: group,
          created_at: at,
        },
        primaryKey: ["channel_id", "account_id"],
        indexes: [{ name: "group_channel_subscriptions_account_idx", columns: ["account_id", "group_id"] }],
      },
    ],
    /** Null for the statuses posted before channels: a group's primary channel takes them when it is made. */
    addColumns: [{ table: "group_statuses", column: "channel_id", spec: optionalText }],
    indexes: [{ table: "group_statuses", name: "group_statuses_channel_idx", columns: ["channel_id", "status_id"] }],
  },
  {
    name: "groups_0004_settings",
    tables: [
      {
        /**
         * A group's settings that are not columns of its row, one row per key
         * the group wrote (the join mode is `groups.join_mode`). A key without
         * a row has its setting's default, so registering a setting writes
         * nothing, and deleting a row reverts the setting.
         */
        name: "group_settings",
        columns: { group_id: group, key: text, value: { type: "json" }, updated_by: optionalAccount, updated_at: at },
        primaryKey: ["group_id", "key"],
      },
      {
        /** A group's choices about applications: without a row, an application has its default (`defaultInstalled`). */
        name: "group_apps",
        columns: { group_id: group, app_id: text, installed: { type: "bool" }, changed_by: optionalAccount, changed_at: at },
        primaryKey: ["group_id", "app_id"],
      },
    ],
  },
  groupAccountsMigration,
  channelAccountsMigration,
];
