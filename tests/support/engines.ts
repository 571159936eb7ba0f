/**
 * The storage engines every feature suite runs on. A suite is written once,
 * inside `describeOnEngines`, and takes its databases from the engine it is
 * given: SQLite in memory, and PostgreSQL on the run's test server (a fresh
 * database per test Kith, copied from a migrated template).
 *
 * KITH_TEST_ENGINES=sqlite (or =postgres) runs one engine only, for a quick
 * local pass; the other engine's suites are still listed, as skipped.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Storage, coreMigrations } from "@kith/core";
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

/**
 * A migrated database that outlives what is opened on it, as a database
 * outlives a server process: for suites that reopen one (a restart) or open
 * it twice (two processes), or that work below the API.
 */
export interface EngineDatabase {
  /** Where another process finds it: a file path or a URL. */
  readonly location: string;
  /** A new storage on the database. Close it before `drop()`. */
  open(): Storage;
  /** A test Kith on a new storage on the database; closing the Kith leaves the database. */
  testKith(options?: EngineKithOptions): Promise<TestKith>;
  /** Deletes the database. */
  drop(): Promise<void>;
}

export interface Engine {
  readonly name: EngineName;
  /** As suite titles show it: "SQLite", "PostgreSQL". */
  readonly label: string;
  /** A test Kith on a fresh, migrated database of this engine; its close() also drops the database. */
  testKith(options?: EngineKithOptions): Promise<TestKith>;
  /** A fresh, migrated database to open storages and Kiths on; SQLite's is a file, as it must be to open twice. */
  database(): Promise<EngineDatabase>;
}

/** Connections per PostgreSQL storage: enough for a request's parallel reads, few enough for many parallel suites. */
const POSTGRES_POOL = 4;

/** The storage as it is, when a suite does not wrap it. */
const unwrapped = (storage: Storage): Storage => storage;

/** A test Kith on a storage `open` makes. */
function kithOn(open: () => Storage, { wrapStorage = unwrapped, ...options }: EngineKithOptions = {}): Promise<TestKith> {
  return createTestKith({ ...options, storage: () => wrapStorage(open()) });
}

export const sqlite: Engine = {
  name: "sqlite",
  label: "SQLite",
  testKith: (options) => kithOn(() => createSqliteStorage({ filename: ":memory:" }), options),
  async database() {
    const dir = await mkdtemp(join(tmpdir(), "kith-engine-"));
    const location = join(dir, "kith.sqlite");
    const open = () => createSqliteStorage({ filename: location });
    const first = open();
    await first.migrate(coreMigrations);
    await first.close();
    return {
      location,
      open,
      testKith: (options) => kithOn(open, options),
      drop: () => rm(dir, { recursive: true, force: true }),
    };
  },
};

export const postgres: Engine = {
  name: "postgres",
  label: "PostgreSQL",
  async testKith(options) {
    const database = await freshMigratedPostgresDatabase();
    try {
      const kith = await kithOn(() => createPostgresStorage({ connectionString: database.url, max: POSTGRES_POOL }), options);
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
    const open = () => createPostgresStorage({ connectionString: database.url, max: POSTGRES_POOL });
    return { location: database.url, open, testKith: (options) => kithOn(open, options), drop: () => database.drop() };
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

type SuiteOptions = Parameters<typeof describe>[1] & object;

/**
 * Declares a suite once per engine, titled `name (SQLite)` and
 * `name (PostgreSQL)`, with vitest's suite `options` if given. An engine that
 * cannot run here (not installed, or left out by KITH_TEST_ENGINES) still has
 * its suite listed, as skipped, its title saying why.
 */
export function describeOnEngines(name: string, body: (engine: Engine) => void): void;
export function describeOnEngines(name: string, options: SuiteOptions, body: (engine: Engine) => void): void;
export function describeOnEngines(
  name: string,
  ...args: [body: (engine: Engine) => void] | [options: SuiteOptions, body: (engine: Engine) => void]
): void {
  const [options, body] = args.length === 1 ? [{}, args[0]] : args;
  for (const engine of engines) {
    const title = `${name} (${engine.label})`;
    const reason = unavailable(engine);
    if (reason === null) describe(title, options, () => body(engine));
    else describe.skip(`${title} [skipped: ${reason}]`, options, () => body(engine));
  }
}
