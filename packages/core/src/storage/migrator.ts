import { type Kysely, sql } from "kysely";
import { type Migration, Migrator } from "kysely/migration";
import type { Dialect, MigrationSpec } from "../ports/migration-spec.js";
import type { MigrationReport } from "../ports/storage.js";
import { getLogger } from "../logging.js";
import { migrationStatements } from "./migrations/ddl.js";

const log = getLogger(["kith", "storage", "migrations"]);

/**
 * A module's migration name: `<module>_NNNN_<what>`, the module's name in
 * hyphens or underscores (`featured_tags_0001_…`); the core's start with
 * their number.
 */
const MODULE_MIGRATION = /^([a-z][a-z0-9_-]*?)_\d{4}_/;

/** Kysely's record of applied migrations. */
const MIGRATION_TABLE = "kysely_migration";

/**
 * Refuses a list whose names repeat, or whose migrations of one owner (the
 * core, or one module) are out of order. Kysely's migrator runs pending
 * migrations in the order of their names, so within an owner a later one
 * needs a higher number. Across owners the names decide: the core's (which
 * start with their number) run first, then the modules' by module name,
 * whatever their place in the list; a module's tables therefore do not
 * reference another module's (see `KithModule.migrations`).
 */
function checkOrder(migrations: readonly MigrationSpec[]): void {
  const seen = new Set<string>();
  const lastOf = new Map<string, string>();
  for (const { name } of migrations) {
    if (seen.has(name)) throw new Error(`Migration ${name} is listed twice`);
    seen.add(name);
    const owner = MODULE_MIGRATION.exec(name)?.[1] ?? "core";
    const before = lastOf.get(owner);
    if (before !== undefined && name <= before) {
      throw new Error(
        `Migration ${name} follows ${before} in the list but its name does not sort after it: ` +
          "migrations run in their names' order, so a later one needs a higher number",
      );
    }
    lastOf.set(owner, name);
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

/** The names of the migrations the database records as applied; none before its first migration. */
// biome-ignore lint/suspicious/noExplicitAny: read before the schema is known.
async function appliedNames(db: Kysely<any>): Promise<string[]> {
  const tables = await db.introspection.getTables({ withInternalKyselyTables: true });
  if (!tables.some((table) => table.name === MIGRATION_TABLE)) return [];
  const rows = await db.selectFrom(MIGRATION_TABLE).select("name").execute();
  return rows.map((row: { name: string }) => row.name);
}

/** The names of `migrations` the database has not applied yet, in order; read only (what `kith doctor` reports). */
// biome-ignore lint/suspicious/noExplicitAny: read before the schema is known.
export async function pendingMigrations(db: Kysely<any>, migrations: readonly MigrationSpec[]): Promise<string[]> {
  const applied = new Set(await appliedNames(db));
  return migrations.map((spec) => spec.name).filter((name) => !applied.has(name));
}

/**
 * Migrations applied by a module that is no longer composed, kept in the list
 * as steps with nothing to do: an embedder may leave a module out after it
 * ran, and its tables (and their rows) stay for the day it comes back. A
 * core migration missing from the list is still an error: that database was
 * made by another version of Kith.
 */
function leftModulesMigrations(applied: readonly string[], listed: ReadonlySet<string>): Record<string, Migration> {
  const left = applied.filter((name) => !listed.has(name) && MODULE_MIGRATION.test(name));
  if (left.length > 0) {
    const modules = [...new Set(left.map((name) => MODULE_MIGRATION.exec(name)?.[1]))];
    log.warn("Modules {modules} are not composed but their tables are kept: {migrations}", { modules, migrations: left });
  }
  return Object.fromEntries(left.map((name) => [name, { async up() {} }]));
}

/**
 * Applies the pending migrations of the list, rendered for the engine.
 * Kysely's migrator records them in `kysely_migration` and takes a lock, so
 * concurrent starts do not apply a migration twice. A migration whose name
 * sorts before one already applied still runs (a module added to a running
 * installation). One recorded as applied but missing from the list is an
 * error, as Kysely has it, unless a module left out applied it.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations run against whatever schema the database has.
export async function applyMigrations(db: Kysely<any>, migrations: readonly MigrationSpec[], dialect: Dialect): Promise<MigrationReport> {
  checkOrder(migrations);
  const listed = new Set(migrations.map((spec) => spec.name));
  const byName = {
    ...leftModulesMigrations(await appliedNames(db), listed),
    ...Object.fromEntries(migrations.map((spec) => [spec.name, rendered(spec, dialect)])),
  };
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
