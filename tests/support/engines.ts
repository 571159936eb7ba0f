/**
 * The storage engines every feature suite runs on. A suite is written once,
 * inside `describeOnEngines`, and takes its databases from the engine it is
 * given: SQLite in memory, and PostgreSQL on the run's test server (a fresh
 * database per test Kith, copied from a migrated template).
 *
 * KITH_TEST_ENGINES=sqlite (or =postgres) runs one engine only, for a quick
 * local pass; the other engine's suites are still listed, as skipped.
 */
import type { Storage } from "@kith/core";
import { type TestKith, type TestKithOptions, createTestKith } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { describe } from "vitest";
import { freshMigratedPostgresDatabase } from "./migrated-postgres.js";
import { postgresUrl } from "./real-servers.js";

export type EngineName = "sqlite" | "postgres";

export interface EngineKithOptions extends Partial<Omit<TestKithOptions, "storage">> {
  /** Wraps the engine's storage before the Kith gets it (to count its statements, say). */
  readonly wrapStorage?: (storage: Storage) => Storage;
}

/** A migrated database of its own; close() closes the storage and drops the database. */
export interface EngineDatabase {
  readonly storage: Storage;
  close(): Promise<void>;
}

export interface Engine {
  readonly name: EngineName;
  /** As suite titles show it: "SQLite", "PostgreSQL". */
  readonly label: string;
  /** A test Kith on a fresh, migrated database of this engine; its close() also drops the database. */
  testKith(options?: EngineKithOptions): Promise<TestKith>;
  /** A storage on a fresh, migrated database, for suites that work below the API. */
  database(): Promise<EngineDatabase>;
}

/** Connections per PostgreSQL storage: enough for a request's parallel reads, few enough for many parallel suites. */
const POSTGRES_POOL = 4;

/** The storage as it is, when a suite does not wrap it. */
const unwrapped = (storage: Storage): Storage => storage;

export const sqlite: Engine = {
  name: "sqlite",
  label: "SQLite",
  testKith: ({ wrapStorage = unwrapped, ...options } = {}) =>
    createTestKith({ ...options, storage: () => wrapStorage(createSqliteStorage({ filename: ":memory:" })) }),
  async database() {
    const storage = createSqliteStorage({ filename: ":memory:" });
    await storage.migrate();
    return { storage, close: () => storage.close() };
  },
};

export const postgres: Engine = {
  name: "postgres",
  label: "PostgreSQL",
  async testKith({ wrapStorage = unwrapped, ...options } = {}) {
    const database = await freshMigratedPostgresDatabase();
    try {
      const kith = await createTestKith({
        ...options,
        storage: () => wrapStorage(createPostgresStorage({ connectionString: database.url, max: POSTGRES_POOL })),
      });
      return {
        ...kith,
        async close() {
          try {
            await kith.close();
          } finally {
            await database.drop();
          }
        },
      };
    } catch (error) {
      await database.drop();
      throw error;
    }
  },
  async database() {
    const database = await freshMigratedPostgresDatabase();
    const storage = createPostgresStorage({ connectionString: database.url, max: POSTGRES_POOL });
    return {
      storage,
      async close() {
        try {
          await storage.close();
        } finally {
          await database.drop();
        }
      },
    };
  },
};

export const engines: readonly Engine[] = [sqlite, postgres];

/** Why `engine` cannot run here, or null when it can. */
function unavailable(engine: Engine): string | null {
  const chosen = process.env.KITH_TEST_ENGINES?.split(",").map((name) => name.trim());
  if (chosen && !chosen.includes(engine.name)) return `KITH_TEST_ENGINES=${process.env.KITH_TEST_ENGINES}`;
  if (engine.name === "postgres" && postgresUrl() === null) return "PostgreSQL not installed";
  return null;
}

/**
 * Declares a suite once per engine, titled `name (SQLite)` and
 * `name (PostgreSQL)`. An engine that cannot run here (not installed, or left
 * out by KITH_TEST_ENGINES) still has its suite listed, as skipped, its title
 * saying why.
 */
export function describeOnEngines(name: string, body: (engine: Engine) => void): void {
  for (const engine of engines) {
    const title = `${name} (${engine.label})`;
    const reason = unavailable(engine);
    if (reason === null) describe(title, () => body(engine));
    else describe.skip(`${title} [skipped: ${reason}]`, () => body(engine));
  }
}
