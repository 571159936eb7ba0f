import type { ColumnSpec, MigrationSpec } from "../../ports/migration-spec.js";

const text: ColumnSpec = { type: "text" };

/**
 * Migration 0026: closed audiences. A `direct` status may be addressed to an
 * audience (`status_audiences`) besides the accounts it mentions; the
 * accounts in `audience_members` then see it too, as long as they stay in
 * it. A module keeps an audience's members (the groups module: a secret
 * group's members, the group's id as the audience's), so that the one
 * visibility rule decides for every read route without knowing groups.
 */
export const statusAudiencesMigration: MigrationSpec = {
  name: "0026_status_audiences",
  tables: [
    {
      name: "status_audiences",
      columns: { status_id: { type: "text", references: "statuses(id)", onDelete: "cascade" }, audience_id: text },
      primaryKey: ["status_id"],
      indexes: [{ name: "status_audiences_audience_idx", columns: ["audience_id"] }],
    },
    {
      name: "audience_members",
      columns: { audience_id: text, account_id: { type: "text", references: "accounts(id)", onDelete: "cascade" } },
      primaryKey: ["audience_id", "account_id"],
      indexes: [{ name: "audience_members_account_idx", columns: ["account_id"] }],
    },
  ],
};
