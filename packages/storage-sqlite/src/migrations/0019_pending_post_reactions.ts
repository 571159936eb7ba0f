import { migrationStatements, pendingPostReactionsMigration } from "@kith/core";
import { type Kysely, sql } from "kysely";

/** Pending reactions of new posts, described once in core (storage/migrations/0019-pending-post-reactions.ts) and rendered for this engine. */
// biome-ignore lint/suspicious/noExplicitAny: a migration sees the schema of its own time.
export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of migrationStatements(pendingPostReactionsMigration, "sqlite")) await sql.raw(statement).execute(db);
}
