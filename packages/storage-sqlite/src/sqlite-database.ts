import type BetterSqlite3 from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";
import { StatementCache } from "./statement-cache.js";
import { withUnplannedParameters } from "./unplanned-parameters.js";

/** Statements prepared per SQL text are reused; preparing is a large part of a small query's cost. */
const STATEMENT_CACHE_SIZE = 500;

/**
 * Kysely's `begin`, sent as `begin immediate`: the transaction takes the
 * write lock at once. A deferred transaction that reads and then writes
 * fails at once with SQLITE_BUSY ("database is locked") when another
 * process (a `kith` command beside the server) wrote in between, since its
 * snapshot is stale; the busy timeout does not apply to that. Taking the
 * lock first makes the other writer wait instead, as the timeout intends.
 * Within one process Kysely runs one transaction at a time anyway.
 */
const BEGIN_IMMEDIATE = "begin immediate";

type Parameter = unknown;

/**
 * SQLite binds only numbers, strings, bigints, buffers and null. The schema's
 * conventions write booleans and dates, so they are converted here, once,
 * rather than in every repository.
 */
function toSqliteParameter(value: Parameter): Parameter {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (value instanceof Date) return value.toISOString();
  return value;
}

/**
 * Wraps a better-sqlite3 connection in the interface Kysely's SqliteDialect
 * expects, adding parameter conversion, a statement cache, transactions
 * that take the write lock at once, and parameters SQLite does not re-plan
 * on (unplanned-parameters.ts).
 */
export function wrapSqliteDatabase(db: BetterSqlite3.Database): SqliteDatabase {
  const cache = new StatementCache<BetterSqlite3.Statement>(STATEMENT_CACHE_SIZE);
  const compile = (text: string): BetterSqlite3.Statement => db.prepare(withUnplannedParameters(text === "begin" ? BEGIN_IMMEDIATE : text));
  const prepare = (text: string): BetterSqlite3.Statement => cache.get(text, compile);
  return {
    close: () => db.close(),
    prepare(text: string): SqliteStatement {
      const statement = prepare(text);
      const bind = (parameters: ReadonlyArray<unknown>) => parameters.map(toSqliteParameter);
      return {
        get reader() {
          return statement.reader;
        },
        all: (parameters) => statement.all(bind(parameters)) as unknown[],
        run: (parameters) => {
          const result = statement.run(bind(parameters));
          return { changes: result.changes, lastInsertRowid: result.lastInsertRowid };
        },
        iterate: (parameters) => statement.iterate(bind(parameters)) as IterableIterator<unknown>,
      };
    },
  };
}
