import type { Kysely } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import type { MigrationReport } from "../ports/storage.js";

/**
 * Applies an adapter's numbered migrations, kept in code so bundles carry
 * them. Kysely's migrator records them in `kysely_migration` and takes a lock,
 * so concurrent starts do not apply a migration twice.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema the database has.
export async function applyMigrations(db: Kysely<any>, migrations: Record<string, Migration>): Promise<MigrationReport> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((result) => result.status === "Error")?.migrationName;
    throw new Error(`Migration ${failed ?? "(unknown)"} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).filter((result) => result.status === "Success").map((result) => result.migrationName) };
}
