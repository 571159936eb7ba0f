import { type Database, KyselyStorage, getLogger, transactionWithCommitHooks } from "@kith/core";
import type {
  ColumnDescription,
  IndexDescription,
  MigrationReport,
  MigrationSpec,
  SchemaDescription,
  Storage,
  StorageCapabilities,
  StorageInfo,
  TableDescription,
  TransactionOptions,
} from "@kith/core";
import {
  Kysely,
  PostgresDialect,
  type PostgresCursor,
  type PostgresPool,
  type PostgresPoolClient,
  type PostgresQueryResult,
  sql,
} from "kysely";
import pg from "pg";
import { TransactionStart } from "./begin-with-first-statement.js";
import { StatementPipeline, pipelinedHandle } from "./pipelined-statements.js";
import { StatementNames } from "./prepared-statements.js";
import { type StatementConfig, runStatement } from "./run-statement.js";
import { postgresTypes } from "./type-parsers.js";
import { isUnavailableError } from "./unavailable-errors.js";

export interface PostgresStorageOptions {
  /** A `postgres://` URL. Without it (and without `pool`), pg reads the usual PG* environment variables. */
  readonly connectionString?: string;
  /**
   * A pool the caller owns: `close()` leaves it open. Its queries are read
   * with the adapter's type parsers whatever the pool was configured with.
   */
  readonly pool?: pg.Pool;
  /** Connections in the pool the adapter creates. @default 10 */
  readonly max?: number;
  /**
   * Run repeated statements as named prepared statements (see
   * `prepared-statements.ts`). Turn off behind a pooler that hands each
   * transaction a different server connection without carrying prepared
   * statements along. @default true
   */
  readonly prepareStatements?: boolean;
  /**
   * Send a transaction's `begin` with its first statement, in one round trip
   * (`begin-with-first-statement.ts`). Relies on pg 8's protocol methods,
   * which pg does not document: turn off should a pg release change them
   * (docs/optimisations.md). @default true
   */
  readonly beginWithFirstStatement?: boolean;
  /**
   * Send the statements a transaction gives at once without waiting for each
   * other's answers (`pipelined-statements.ts`; the `pipelining` capability).
   * Relies on pg 8's undocumented pipeline mode: turn off should a pg release
   * change it (docs/optimisations.md). @default true
   */
  readonly pipelining?: boolean;
}

/** The speed-ups of `PostgresStorageOptions` that rely on pg's internals, as the pool wrapper takes them. */
interface ProtocolShortcuts {
  readonly beginWithFirstStatement: boolean;
  readonly pipelining: boolean;
}

/** The connections a pg pool opens when it is not told. */
const PG_POOL_DEFAULT_MAX = 10;

/** How long close() waits for the pool's connections to close. */
const DISCONNECT_TIMEOUT_MS = 5_000;

const CAPABILITIES: StorageCapabilities = {
  engine: "postgres",
  fullTextSearch: "tsvector",
  skipLocked: true,
  concurrentProcesses: true,
  fenceCorrelatedExists: true,
  writingWith: true,
  serverRoundTrips: true,
  pipelining: true,
};

/**
 * The pool as Kysely sees it, with repeated statements run as named prepared
 * statements when `names` is given. A borrowed pool is the caller's to end:
 * `Kysely.destroy()` leaves it open, and the adapter's type parsers go with
 * every query, since the caller's pool may have been made with pg's defaults
 * (Dates, int8 as strings, parsed JSON), which would break the schema's
 * conventions.
 */
function kyselyPool(pool: pg.Pool, borrowed: boolean, names: StatementNames | null, shortcuts: ProtocolShortcuts): PostgresPool {
  const clients = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const types = borrowed ? postgresTypes : undefined;
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let wrapped = clients.get(client);
    if (wrapped) return wrapped;
    const start = shortcuts.beginWithFirstStatement ? new TransactionStart(client) : null;
    const pipeline = shortcuts.pipelining ? new StatementPipeline(client) : null;
    const run = (config: StatementConfig): Promise<pg.QueryResult> => (start ? start.run(config) : runStatement(client, config));
    // Kysely sends SQL text with parameters, or a cursor (a pg Submittable) when streaming.
    function query<R>(text: string, parameters: readonly unknown[]): Promise<PostgresQueryResult<R>>;
    function query<R>(cursor: PostgresCursor<R>): PostgresCursor<R>;
    function query(textOrCursor: string | PostgresCursor<unknown>, parameters: readonly unknown[] = []): unknown {
      if (typeof textOrCursor !== "string") {
        start?.flush();
        return client.query(textOrCursor as unknown as pg.Submittable);
      }
      const control = pipeline?.control(textOrCursor, parameters) ?? start?.control(textOrCursor, parameters);
      if (control) return control;
      pipeline?.sending(textOrCursor);
      const name = names?.nameOf(textOrCursor);
      const unnamed = { text: textOrCursor, values: parameters as unknown[], ...(types && { types }) };
      if (name === undefined || !names) return run(unnamed);
      return run({ ...unnamed, name }).catch(async (error: unknown) => {
        if (!isStaleStatement(error)) throw error;
        // Another process migrated the schema under a prepared `SELECT *`: later runs prepare anew, and this one runs
        // again unnamed. Inside a transaction the failure has already aborted it, so the first error is the one told.
        names.schemaChanged();
        return runStatement(client, unnamed).catch(() => {
          throw error;
        });
      });
    }
    wrapped = {
      query,
      release: (destroy?: boolean) => {
        start?.released();
        pipeline?.released();
        client.release(destroy);
      },
      // Kysely cancels a query through the backend's process id when it has it.
      get processID(): number | undefined {
        return (client as { processID?: number }).processID;
      },
    };
    clients.set(client, wrapped);
    return wrapped;
  };
  return {
    options: pool.options,
    connect: async () => wrap(await pool.connect()),
    end: borrowed ? async () => {} : () => pool.end(),
  };
}

/** PostgreSQL's refusal to run a prepared statement whose result columns changed with the schema. */
function isStaleStatement(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error as { code?: unknown }).code === "0A000" &&
    error.message.includes("cached plan must not change result type")
  );
}

interface ColumnRow {
  table_name: string;
  column_name: string;
  type: string;
  nullable: boolean;
}

interface IndexColumnRow {
  table_name: string;
  index_name: string;
  is_unique: boolean;
  is_primary: boolean;
  backs_constraint: boolean;
  predicate: string | null;
  column_name: string;
}

class PostgresStorage extends KyselyStorage {
  readonly capabilities: StorageCapabilities;

  constructor(
    pool: PostgresPool,
    /** The most connections the pool opens. */
    poolSize: number,
    private readonly names: StatementNames | null,
    /** Whether transactions may pipeline their statements (`PostgresStorageOptions.pipelining`). */
    private readonly pipelining: boolean,
    /** Resolves once the pool's connections are closed, after Kysely has ended the pool. */
    private readonly disconnected: () => Promise<void> = async () => {},
  ) {
    super(new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), "postgres");
    // Each transaction holds a connection: two open at once need two.
    this.capabilities = { ...CAPABILITIES, concurrentTransactions: poolSize > 1, pipelining };
  }

  override transaction<T>(work: (trx: Kysely<Database>) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    if (!options.concurrentStatements || !this.pipelining) return super.transaction(work);
    return transactionWithCommitHooks((inner) => this.db.transaction().execute(async (trx) => inner(await pipelinedHandle(trx))), work);
  }

  isUnavailable(error: unknown): boolean {
    return isUnavailableError(error);
  }

  override async migrate(migrations: readonly MigrationSpec[]): Promise<MigrationReport> {
    try {
      return await super.migrate(migrations);
    } finally {
      this.names?.schemaChanged();
    }
  }

  async describeSchema(): Promise<SchemaDescription> {
    // Ordinary tables of the current schema, without Kysely's bookkeeping
    // tables; names compared bytewise (COLLATE "C"), as SQLite orders them.
    const tableFilter = sql`
      n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND NOT starts_with(c.relname::text, 'kysely_')`;
    const { rows: columns } = await sql<ColumnRow>`
      SELECT c.relname AS table_name, a.attname AS column_name,
        format_type(a.atttypid, a.atttypmod) AS type, NOT a.attnotnull AS nullable
      FROM pg_catalog.pg_class c
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
      WHERE ${tableFilter}
      ORDER BY c.relname COLLATE "C", a.attnum`.execute(this.db);
    // One row per key column of each index, in index order. An expression
    // column has no attribute, so its expression is reported instead. Indexes
    // that back a constraint (primary key, UNIQUE or EXCLUDE constraints) are
    // marked: only those made by CREATE INDEX are described, as on SQLite.
    const { rows: indexColumns } = await sql<IndexColumnRow>`
      SELECT c.relname AS table_name, ic.relname AS index_name,
        i.indisunique AS is_unique, i.indisprimary AS is_primary,
        EXISTS (
          SELECT 1 FROM pg_catalog.pg_constraint con
          WHERE con.conindid = i.indexrelid AND con.conrelid = i.indrelid AND con.contype IN ('p', 'u', 'x')
        ) AS backs_constraint,
        pg_get_expr(i.indpred, i.indrelid, true) AS predicate,
        coalesce(a.attname::text, pg_get_indexdef(i.indexrelid, k.pos + 1, true)) AS column_name
      FROM pg_catalog.pg_index i
      JOIN pg_catalog.pg_class c ON c.oid = i.indrelid
      JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid
      CROSS JOIN LATERAL generate_series(0, i.indnkeyatts - 1) AS k(pos)
      LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = i.indkey[k.pos] AND i.indkey[k.pos] <> 0
      JOIN pg_catalog.pg_am am ON am.oid = ic.relam
      -- Only B-tree indexes have a counterpart on SQLite; GIN full-text indexes (migration 0009) are engine-specific.
      WHERE ${tableFilter} AND am.amname = 'btree'
      ORDER BY c.relname COLLATE "C", ic.relname COLLATE "C", k.pos`.execute(this.db);

    const tables = new Map<
      string,
      { columns: ColumnDescription[]; indexes: Map<string, IndexDescription & { columns: string[] }>; primaryKey: string[] }
    >();
    for (const column of columns) {
      let table = tables.get(column.table_name);
      if (!table) {
        table = { columns: [], indexes: new Map(), primaryKey: [] };
        tables.set(column.table_name, table);
      }
      table.columns.push({ name: column.column_name, type: column.type.toLowerCase(), nullable: column.nullable });
    }
    for (const row of indexColumns) {
      const table = tables.get(row.table_name);
      if (!table) continue;
      if (row.is_primary) {
        table.primaryKey.push(row.column_name);
        continue;
      }
      if (row.backs_constraint) continue;
      let index = table.indexes.get(row.index_name);
      if (!index) {
        index = { name: row.index_name, unique: row.is_unique, columns: [], where: row.predicate };
        table.indexes.set(row.index_name, index);
      }
      index.columns.push(row.column_name);
    }
    const described: TableDescription[] = [...tables].map(([name, table]) => ({
      name,
      columns: table.columns,
      indexes: [...table.indexes.values()].sort((a, b) => a.name.localeCompare(b.name)),
      primaryKey: table.primaryKey,
    }));
    return { tables: described };
  }

  async info(): Promise<StorageInfo> {
    const { rows } = await sql<{ version: string; size: number }>`
      SELECT current_setting('server_version') AS version, pg_database_size(current_database()) AS size`.execute(this.db);
    const row = rows[0];
    if (!row) throw new Error("PostgreSQL returned no server information");
    // Distribution builds append their own text, e.g. "15.18 (Debian 15.18-1.pgdg120+1)".
    const version = /^\d+(?:\.\d+)*/.exec(row.version)?.[0] ?? row.version;
    return { engine: "postgres", version, sizeBytes: row.size };
  }

  async ping(): Promise<void> {
    await sql`SELECT 1`.execute(this.db);
  }

  async close(): Promise<void> {
    // Ends the pool the adapter made; a borrowed pool's `end` does nothing.
    await this.db.destroy();
    await this.disconnected();
  }
}

/**
 * PostgreSQL through pg and Kysely: for deployments with several processes,
 * or that already run PostgreSQL. Rows read back as on SQLite (ISO timestamp
 * strings, JSON as text, numbers for int8), so repositories are written once.
 */
export function createPostgresStorage(options: PostgresStorageOptions): Storage {
  if (options.pool && options.connectionString !== undefined) {
    throw new Error("createPostgresStorage: give either a pool or a connectionString, not both");
  }
  const names = options.prepareStatements === false ? null : new StatementNames();
  const shortcuts: ProtocolShortcuts = {
    beginWithFirstStatement: options.beginWithFirstStatement ?? true,
    pipelining: options.pipelining ?? true,
  };
  if (options.pool) {
    const poolSize = options.pool.options.max ?? PG_POOL_DEFAULT_MAX;
    return new PostgresStorage(kyselyPool(options.pool, true, names, shortcuts), poolSize, names, shortcuts.pipelining);
  }
  const poolSize = options.max ?? PG_POOL_DEFAULT_MAX;
  const pool = new pg.Pool({
    ...(options.connectionString !== undefined ? { connectionString: options.connectionString } : {}),
    max: poolSize,
    types: postgresTypes,
  });
  // pg emits "error" when an idle connection breaks (say, the server restarts);
  // unhandled, that event would end the process. The pool replaces the connection.
  const logger = getLogger(["storage", "postgres"]);
  pool.on("error", (error) => logger.warn("An idle PostgreSQL connection failed: {message}", { message: error.message }));
  // pg's Pool.end() resolves before its connections have said goodbye to the
  // server. close() waits for them, so that once it returns the database can
  // be dropped or the server stopped without cutting off a closing session.
  let connections = 0;
  let drained: (() => void) | undefined;
  pool.on("connect", (client) => {
    connections++;
    // A connection the server ends while it is checked out (a restart, pg_terminate_backend) emits "error" on the
    // client, where the pool listens only while it is idle: unhandled, it would end the process. The statement under
    // way fails on its own, and the pool drops the connection when it comes back.
    client.on("error", (error: Error) => logger.warn("A PostgreSQL connection in use failed: {message}", { message: error.message }));
    // JIT compiles a statement whose estimated cost passes jit_above_cost: worth it for long reports, not for the
    // short statements Kith runs, where the compiling is the cost, hundreds of times a page's run (bench/READING.md,
    // "Measurements behind the code"). pg runs this before any query given to the client.
    client.query("set jit = off").catch((error: Error) => logger.warn("Could not turn JIT off: {message}", { message: error.message }));
  });
  pool.on("remove", () => {
    connections--;
    if (connections === 0) drained?.();
  });
  const disconnected = async (): Promise<void> => {
    if (connections === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => {
        drained = resolve;
      }),
      // A server that does not answer the goodbye must not hold close() forever.
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, DISCONNECT_TIMEOUT_MS).unref();
      }),
    ]);
    clearTimeout(timer);
  };
  return new PostgresStorage(kyselyPool(pool, false, names, shortcuts), poolSize, names, shortcuts.pipelining, disconnected);
}
