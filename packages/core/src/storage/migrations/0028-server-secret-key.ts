import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0028: the secret key a server keeps in its own database when it
 * was given none (`config.secretKeys`), so that what it sealed (tokens a push
 * carries) still opens after a restart. A key kept beside the data protects
 * little; the server says so at start until one is configured.
 */
export const serverSecretKeyMigration: MigrationSpec = {
  name: "0028_server_secret_key",
  tables: [
    {
      name: "server_secret_keys",
      columns: {
        name: { type: "text" },
        secret: { type: "text" },
        created_at: { type: "timestamp" },
      },
      primaryKey: ["name"],
      withoutRowid: true,
    },
  ],
};
