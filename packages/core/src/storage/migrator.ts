import { type Kysely, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import type { Dialect, MigrationSpec } from "../ports/migration-spec.js";
import type { MigrationReport } from "../ports/storage.js";
import { migrationStatements } from "./migrations/ddl.js";

/**
 * Refuses a list whose names repeat or are out of order: Kysely's migrator
 * runs pending migrations in the order of their names, so a list in another
 * order would run differently from how it reads.
 */
function checkOrder(migrations: readonly MigrationSpec[]): void {
  for (let i = 1; i < migrations.length; i++) {
    const before = migrations[i - 1]?.name ?? "";
    const name = migrations[i]?.name ?? "";
    if (name <= before) {
      throw new Error(
        `Migration ${name} follows ${before} in the list but its name does not sort after it: ` +
          "migrations run in their names' order, so a later one needs a higher number",
      );
    }
  }
}

/** A spec as Kysely's migration: its statements, rendered for the engine when it runs. */
function rendered(spec: MigrationSpec, dialect: Dialect): Migration {
  return {
    // biome-ignore lint/suspicious/noExplicitAny: a migration runs against the schema of its own time.
    async up(db: Kysely<any>): Promise<void> {
      for (const statement of migrationStatements(spec, dialect)) await sql.raw(statement).execute(db);
    },
  };
}

/**
 * Applies the pending migrations of the list, rendered for the engine.
 * Kysely's migrator records them in `kysely_migration` and takes a lock, so
 * concurrent starts do not apply a migration twice. A migration whose name
 * sorts before one already applied still runs (a module added to a running
 * installation); one recorded as applied but missing from the list is an
 * error, as Kysely has it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema the database has.
export async function applyMigrations(db: Kysely<any>, migrations: readonly MigrationSpec[], dialect: Dialect): Promise<MigrationReport> {
  checkOrder(migrations);
  const byName = Object.fromEntries(migrations.map((spec) => [spec.name, rendered(spec, dialect)]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => byName },
    allowUnorderedMigrations: true,
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
