import type { MigrationSpec } from "../../ports/migration-spec.js";

const policy = { type: "text", nullable: true } as const;

/**
 * Migration 0027: notification policies and requests (Mastodon 4.3). Each
 * account says what becomes of notifications from accounts it does not
 * follow, that do not follow it, that are new, or that mention it privately:
 * accepted, filtered or dropped (a column left null takes the default). A
 * filtered notification is kept, marked `filtered`, out of the lists,
 * counts, streams and pushes; those of one sender form a request, which the
 * recipient accepts (the sender is let through from then on:
 * `notification_permissions`) or dismisses.
 */
export const notificationRequestsMigration: MigrationSpec = {
  name: "0027_notification_requests",
  tables: [
    {
      name: "notification_policies",
      columns: {
        account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
        for_not_following: policy,
        for_not_followers: policy,
        for_new_accounts: policy,
        for_private_mentions: policy,
        for_limited_accounts: policy,
        updated_at: { type: "timestamp" },
      },
      primaryKey: ["account_id"],
      withoutRowid: true,
    },
    {
      name: "notification_permissions",
      columns: {
        account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
        from_account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
        created_at: { type: "timestamp" },
      },
      primaryKey: ["account_id", "from_account_id"],
      withoutRowid: true,
    },
  ],
  addColumns: [{ table: "notifications", column: "filtered", spec: { type: "bool", default: false } }],
  indexes: [{ table: "notifications", name: "notifications_filtered_idx", columns: ["account_id", "from_account_id"], where: "filtered" }],
};
