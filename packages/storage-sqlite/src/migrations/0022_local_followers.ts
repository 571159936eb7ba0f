import { migrationStatements, localFollowersMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Whether a follow's follower is local, and the followers' index that holds local and remote ones apart, described once in core (storage/migrations/0022-local-followers.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(localFollowersMigration, "sqlite")) await sql.raw(statement).execute(db);
}
