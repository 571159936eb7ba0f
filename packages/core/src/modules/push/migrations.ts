import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Web Push: the instance's VAPID key pair, and one subscription per access token. */
export const pushMigrations: readonly MigrationSpec[] = [
  {
    name: "push_0001_subscriptions",
    tables: [
      {
        name: "push_vapid_keys",
        columns: {
          /** One row, `instance`: made on first use and kept, as subscriptions are bound to its public key. */
          id: { type: "text" },
          /** Base64url, uncompressed P-256 point. */
          public_key: { type: "text" },
          private_key: { type: "text" },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
      },
      {
        name: "push_subscriptions",
        columns: {
          id: { type: "text" },
          account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" },
          /** The access token's session: one subscription per token, gone with it. */
          session_id: { type: "text", references: "sessions(id)", onDelete: "cascade" },
          endpoint: { type: "text" },
          /** The user agent's P-256 public key and auth secret (RFC 8291), base64url. */
          key_p256dh: { type: "text" },
          key_auth: { type: "text" },
          /** The notification types pushed, as a JSON object of booleans. */
          alerts: { type: "text" },
          /** `all`, `followed`, `follower` or `none`. */
          policy: { type: "text" },
          /** Sent inside the encrypted payload, as Mastodon's is, for the client to fetch the notification with. */
          access_token: { type: "text" },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "push_subscriptions_session_idx", columns: ["session_id"], unique: true },
          { name: "push_subscriptions_account_idx", columns: ["account_id"] },
        ],
      },
    ],
  },
];
