import type { MigrationSpec } from "../../ports/migration-spec.js";

/** Migration 0003: the email-domain allowlist, and the reason a person gives when signing up in approval mode. */
export const registrationMigration: MigrationSpec = {
  name: "0003_registration",
  tables: [
    {
      name: "email_domain_allows",
      columns: { domain: { type: "text" }, created_at: { type: "timestamp" } },
      primaryKey: ["domain"],
    },
  ],
  addColumns: [{ table: "users", column: "signup_reason", spec: { type: "text", nullable: true } }],
};
