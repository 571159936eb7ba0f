import type { MigrationSpec } from "../../ports/migration-spec.js";

/** The relays this server subscribes to, one row per relay inbox. */
export const relayMigrations: readonly MigrationSpec[] = [
  {
    name: "relays_0001_relays",
    tables: [
      {
        name: "relays",
        columns: {
          id: { type: "text" },
          /** Where the Follow, its Undo and the public statuses go. */
          inbox_url: { type: "text" },
          /** `mastodon` (Follow of the public collection) or `litepub` (Follow of the relay's actor). */
          kind: { type: "text" },
          /** The relay's actor: the one followed (LitePub), or the one that answered (Mastodon). */
          actor_uri: { type: "text", nullable: true },
          /** `idle`, `pending`, `accepted` or `rejected`, as Mastodon's relays. */
          state: { type: "text" },
          /** The id of the last Follow sent, which the relay's Accept or Reject names. */
          follow_activity_id: { type: "text", nullable: true },
          created_at: { type: "timestamp" },
          updated_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "relays_inbox_url_idx", columns: ["inbox_url"], unique: true },
          { name: "relays_follow_activity_idx", columns: ["follow_activity_id"] },
          { name: "relays_state_idx", columns: ["state"] },
        ],
      },
    ],
  },
];
