import { credentialsMigration, migrationStatements } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Credentials (phones, passkeys, login audit log, pending password changes), described once in core (storage/migrations/0006-credentials.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(credentialsMigration, "postgres")) await sql.raw(statement).execute(db);
}
