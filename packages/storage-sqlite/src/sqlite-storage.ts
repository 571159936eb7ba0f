import BetterSqlite3 from "better-sqlite3";
import { type Database, KyselyStorage } from "@kith/core";
import type {
  ColumnDescription,
  IndexDescription,
  SchemaDescription,
  Storage,
  StorageCapabilities,
  StorageInfo,
  TableDescription,
} from "@kith/core";
import { Kysely, SqliteDialect } from "kysely";
import { wrapSqliteDatabase } from "./sqlite-database.js";
import { assertSupportedNode } from "./supported-node.js";

export interface SqliteStorageOptions {
  /** A file path, or `:memory:` for a database that lives as long as the process. */
  readonly filename: string;
  /** Milliseconds a writer waits for another process's lock. @default 5000 */
  readonly busyTimeoutMs?: number;
  /**
   * Pages of write-ahead log (4 KB each) after which a commit copies the log
   * into the database file (`wal_autocheckpoint`). SQLite's own default is
   * 1 000. @default 4000
   */
  readonly walCheckpointPages?: number;
}

/**
 * A checkpoint copies the latest version of each page in the log to the
 * database file, so a page changed by many commits between two checkpoints
 * is copied once. Under a stream of incoming activities every batch changes
 * the same index pages again (a sender's statuses, a status's favourites), and a
 * log of 4 000 pages instead of SQLite's 1 000 made a commit's share of an
 * activity about a third cheaper (bench/READING.md, "Measurements behind the
 * code"). The log then takes up to 16 MB on disk.
 */
const WAL_CHECKPOINT_PAGES = 4000;
/** The log file is cut back to this size after a checkpoint lets SQLite start it again (a reader had held it longer). */
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;

const CAPABILITIES: StorageCapabilities = {
  engine: "sqlite",
  fullTextSearch: "fts5",
  skipLocked: false,
  // Several processes may open the file, but SQLite serialises writers; one process is the supported shape.
  concurrentProcesses: false,
};

class SqliteStorage extends KyselyStorage {
  readonly capabilities = CAPABILITIES;

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly filename: string,
  ) {
    super(new Kysely<Database>({ dialect: new SqliteDialect({ database: wrapSqliteDatabase(connection) }) }), "sqlite");
  }

  /** SQLite keeps a partial index's predicate only in the text of its CREATE INDEX statement. */
  private indexPredicate(name: string): string | null {
    const row = this.connection.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) as
      | { sql: string | null }
      | undefined;
    return row?.sql?.match(/\sWHERE\s+([\s\S]*)$/i)?.[1]?.trim() ?? null;
  }

  async describeSchema(): Promise<SchemaDescription> {
    const tables = this.connection
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'kysely_%' ORDER BY name",
      )
      .all() as { name: string }[];
    // Full-text search is engine-specific (migration 0009): an FTS5 virtual
    // table, the shadow tables FTS5 makes for it and the tables that key its
    // documents are all named `<virtual table>_...`, and none is compared.
    const virtual = (
      this.connection.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'").all() as {
        name: string;
      }[]
    ).map((row) => row.name);
    const engineSpecific = (name: string) => virtual.some((v) => name === v || name.startsWith(`${v}_`));
    const described: TableDescription[] = tables
      .filter(({ name }) => !engineSpecific(name))
      .map(({ name }) => {
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
          partial: number;
        }[];
        const indexes: IndexDescription[] = indexList
          .filter((index) => index.origin === "c")
          .map((index) => ({
            name: index.name,
            unique: index.unique === 1,
            columns: (this.connection.pragma(`index_info(${JSON.stringify(index.name)})`) as { name: string }[]).map((c) => c.name),
            where: index.partial === 1 ? this.indexPredicate(index.name) : null,
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

  /** The file was locked by another connection for longer than the busy timeout: it answers again once freed. */
  isUnavailable(error: unknown): boolean {
    const code = (error as { code?: unknown } | null)?.code;
    return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
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
  // better-sqlite3 loads its native module with the first connection: the Node version is checked before.
  assertSupportedNode();
  const connection = new BetterSqlite3(options.filename);
  if (options.filename !== ":memory:") {
    connection.pragma("journal_mode = WAL");
    connection.pragma(`wal_autocheckpoint = ${Math.max(1, Math.trunc(options.walCheckpointPages ?? WAL_CHECKPOINT_PAGES))}`);
    connection.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  }
  connection.pragma("synchronous = NORMAL");
  connection.pragma("foreign_keys = ON");
  // A statement that changes many rows in a longer transaction (a batch of incoming activities) journals the pages it
  // changes, to undo itself alone; past 64 KB, SQLite would write that journal to a file in /var/tmp, page by page.
  // Kept in memory instead, as are the temporary tables and sorts of queries, which Kith's paged reads keep small.
  connection.pragma("temp_store = MEMORY");
  connection.pragma(`busy_timeout = ${Math.trunc(options.busyTimeoutMs ?? 5000)}`);
  return new SqliteStorage(connection, options.filename);
}
