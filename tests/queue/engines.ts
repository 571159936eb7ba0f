import { coreMigrations } from "@kith/core";
import type { Storage } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { freshPostgresDatabase } from "../support/real-servers.js";

/** A migrated database for a queue test, and how to be rid of it. */
export interface TestDatabase {
  readonly storage: Storage;
  /** Where another process finds the database: a file path or a URL. */
  readonly url: string;
  /** Another storage on the same database, as a second process would have. */
  open(): Storage;
  close(): Promise<void>;
}

export async function sqliteMemoryDatabase(): Promise<TestDatabase> {
  const storage = createSqliteStorage({ filename: ":memory:" });
  await storage.migrate(coreMigrations);
  return {
    storage,
    url: ":memory:",
    open: () => {
      throw new Error("An in-memory SQLite database cannot be opened twice");
    },
    close: () => storage.close(),
  };
}

export async function postgresDatabase(): Promise<TestDatabase> {
  const database = await freshPostgresDatabase();
  const storage = createPostgresStorage({ connectionString: database.url, max: 5 });
  await storage.migrate(coreMigrations);
  const others: Storage[] = [];
  return {
    storage,
    url: database.url,
    open: () => {
      const other = createPostgresStorage({ connectionString: database.url, max: 5 });
      others.push(other);
      return other;
    },
    close: async () => {
      await Promise.all([storage.close(), ...others.map((other) => other.close())]);
      await database.drop();
    },
  };
}
