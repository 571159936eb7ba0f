import BetterSqlite3 from "better-sqlite3";
import { type Database, type OneTimeSecretRow, applyMigrations } from "@kith/core";
import type {
  ColumnDescription,
  CounterState,
  IndexDescription,
  MigrationReport,
  SchemaDescription,
  Storage,
  StorageCapabilities,
  StorageInfo,
  TableDescription,
} from "@kith/core";
import { Kysely, SqliteDialect, sql } from "kysely";
import { sqliteMigrations } from "./migrations/index.js";
import { wrapSqliteDatabase } from "./sqlite-database.js";

export interface SqliteStorageOptions {
  /** A file path, or `:memory:` for a database that lives as long as the process. */
  readonly filename: string;
  /** Milliseconds a writer waits for another process's lock. @default 5000 */
  readonly busyTimeoutMs?: number;
}

const CAPABILITIES: StorageCapabilities = {
  engine: "sqlite",
  fullTextSearch: "fts5",
  skipLocked: false,
  // Several processes may open the file, but SQLite serialises writers; one process is the supported shape.
  concurrentProcesses: false,
};

class SqliteStorage implements Storage {
  readonly capabilities = CAPABILITIES;
  readonly db: Kysely<Database>;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly filename: string,
  ) {
    this.db = new Kysely<Database>({ dialect: new SqliteDialect({ database: wrapSqliteDatabase(connection) }) });
  }

  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.db.transaction().execute(work);
  }

  migrate(): Promise<MigrationReport> {
    return applyMigrations(this.db, sqliteMigrations);
  }

  async consumeOnce(input: { kind: string; secretHash: string; now: Date }): Promise<OneTimeSecretRow | null> {
    const now = input.now.toISOString();
    // One statement: SQLite runs it under its write lock, so two callers cannot both see the row unconsumed.
    const { rows } = await sql<OneTimeSecretRow>`
      UPDATE one_time_secrets SET consumed_at = ${now}
      WHERE kind = ${input.kind} AND secret_hash = ${input.secretHash}
        AND consumed_at IS NULL AND expires_at > ${now}
      RETURNING *`.execute(this.db);
    return rows[0] ?? null;
  }

  async incrementCounter(key: string, windowSeconds: number, now: Date): Promise<CounterState> {
    const at = now.toISOString();
    const ends = new Date(now.getTime() + windowSeconds * 1000).toISOString();
    const { rows } = await sql<{ count: number; window_ends_at: string }>`
      INSERT INTO rate_counters (key, count, window_ends_at) VALUES (${key}, 1, ${ends})
      ON CONFLICT (key) DO UPDATE SET
        count = CASE WHEN rate_counters.window_ends_at <= ${at} THEN 1 ELSE rate_counters.count + 1 END,
        window_ends_at = CASE WHEN rate_counters.window_ends_at <= ${at} THEN excluded.window_ends_at ELSE rate_counters.window_ends_at END
      RETURNING count, window_ends_at`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error("Counter upsert returned no row");
    return { count: Number(row.count), windowEndsAt: new Date(row.window_ends_at) };
  }

  async describeSchema(): Promise<SchemaDescription> {
    const tables = this.connection
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name",
      )
      .all() as { name: string }[];
    const described: TableDescription[] = tables.map(({ name }) => {
      const info = this.connection.pragma(`table_info(${JSON.stringify(name)})`) as {
        name: string;
        type: string;
        notnull: number;
        pk: number;
      }[];
      const columns: ColumnDescription[] = info.map((column) => ({
        name: column.name,
        type: column.type.toLowerCase(),
        nullable: column.notnull === 0 && column.pk === 0,
      }));
      const indexList = this.connection.pragma(`index_list(${JSON.stringify(name)})`) as {
        name: string;
        unique: number;
        origin: string;
      }[];
      const indexes: IndexDescription[] = indexList
        .filter((index) => index.origin === "c")
        .map((index) => ({
          name: index.name,
          unique: index.unique === 1,
          columns: (this.connection.pragma(`index_info(${JSON.stringify(index.name)})`) as { name: string }[]).map((c) => c.name),
        }))
        .sort((a, b) => a.name.localeCompare(b.name));
      const primaryKey = info
        .filter((column) => column.pk > 0)
        .sort((a, b) => a.pk - b.pk)
        .map((column) => column.name);
      return { name, columns, indexes, primaryKey };
    });
    return { tables: described };
  }

  async info(): Promise<StorageInfo> {
    const version = (this.connection.prepare("SELECT sqlite_version() AS version").get() as { version: string }).version;
    const pageCount = this.connection.pragma("page_count", { simple: true }) as number;
    const pageSize = this.connection.pragma("page_size", { simple: true }) as number;
    return { engine: "sqlite", version, sizeBytes: this.filename === ":memory:" ? null : pageCount * pageSize };
  }

  async ping(): Promise<void> {
    this.connection.prepare("SELECT 1").get();
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }
}

/**
 * The embedded default: SQLite through better-sqlite3, on a file (WAL) or in
 * memory. Nothing to install, nothing to run beside Kith.
 */
export function createSqliteStorage(options: SqliteStorageOptions): Storage {
  const connection = new BetterSqlite3(options.filename);
  if (options.filename !== ":memory:") connection.pragma("journal_mode = WAL");
  connection.pragma("synchronous = NORMAL");
  connection.pragma("foreign_keys = ON");
  connection.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  return new SqliteStorage(connection, options.filename);
}
