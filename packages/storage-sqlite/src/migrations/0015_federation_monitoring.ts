import { federationMonitoringMigration, migrationStatements } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** What federation monitoring stores, described once in core (storage/migrations/0015-federation-monitoring.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(federationMonitoringMigration, "sqlite")) await sql.raw(statement).execute(db);
}
