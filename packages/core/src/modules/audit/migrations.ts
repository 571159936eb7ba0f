import type { MigrationSpec } from "../../ports/migration-spec.js";

/** The moderation audit log: one row per action, never changed once written. */
export const auditMigrations: readonly MigrationSpec[] = [
  {
    name: "audit_0001_audit_log",
    tables: [
      {
        name: "audit_log",
        columns: {
          /** `au_…`: time-ordered, the cursor of the pages. */
          id: { type: "text" },
          /** Null: the server itself acted. Kept as written when the account goes: the log outlives who acted. */
          actor_id: { type: "text", nullable: true },
          /** A dotted verb, `account.suspend`. */
          action: { type: "text" },
          /** The resource whose Read permission lets one read the row (`Users`, `GroupMembers`...). */
          resource: { type: "text" },
          target_type: { type: "text" },
          target_id: { type: "text" },
          /** Null: the server's scope; else the group's id. */
          scope: { type: "text", nullable: true },
          text: { type: "text", nullable: true },
          created_at: { type: "timestamp" },
        },
        primaryKey: ["id"],
        indexes: [
          { name: "audit_log_scope_idx", columns: ["scope", "id"] },
          { name: "audit_log_target_idx", columns: ["target_type", "target_id", "id"] },
          { name: "audit_log_actor_idx", columns: ["actor_id", "id"] },
        ],
      },
    ],
  },
];
