// The port names Kysely as its query builder, and the tables' schema (`storage-schema.ts`, beside it) as the types it
// builds with: stores are written once, against this interface, for every SQL engine, and an adapter's part is to
// create those tables and run Kysely on its engine. An engine-neutral port of its own query language would be a
// second Kysely. So the schema is part of the port, kept in ports/, and nothing here reaches into storage/.
import type { Kysely } from "kysely";
import type { Database, OneTimeSecretRow } from "./storage-schema.js";
import type { MigrationSpec } from "./migration-spec.js";

/**
 * A transaction as `Storage.transaction` hands it to its work. Other ports take it without looking inside: the queue
 * writes a job in the transaction of the change that causes it.
 */
export type StorageTransaction = Kysely<Database>;

/** What an engine can do, so services choose a strategy without asking which engine it is. */
export interface StorageCapabilities {
  /** A name for logs and the admin API. */
  readonly engine: "sqlite" | "postgres" | (string & {});
  /** Full-text search flavour the engine offers. */
  readonly fullTextSearch: "fts5" | "tsvector" | "none";
  /** `SELECT ... FOR UPDATE SKIP LOCKED`, so several processes can take work without taking the same row. */
  readonly skipLocked: boolean;
  /** Several processes may write the same database at once. */
  readonly concurrentProcesses: boolean;
  /**
   * Two transactions of one storage may be open at once, each on its own
   * connection, the engine keeping their writes apart and settling their
   * locks (a deadlock fails one of them with an error). Batched writes then
   * commit two batches at once (`platform/storage/batched-writes.ts`). Absent: false.
   */
  readonly concurrentTransactions?: boolean;
  /**
   * The planner may run a correlated `exists` over the whole inner table (as a
   * join, or by hashing every row the subquery could match) where probing an
   * index once per outer row is cheaper. PostgreSQL does this with the
   * visibility checks of a page of statuses: it hashed all 995 follows of a reader
   * to check five statuses. Such checks are then written with `offset 0`, which
   * it does not look through (`platform/storage/exists-fence.ts`). Absent: false.
   */
  readonly fenceCorrelatedExists?: boolean;
  /**
   * A statement's `with` may insert, update or delete, and the statement read
   * the rows it wrote (PostgreSQL's data-modifying `with`): a row and the
   * counter it moves are then written by one statement, one round trip to the
   * database server instead of two. Absent: false.
   */
  readonly writingWith?: boolean;
  /**
   * Each statement is a round trip to a database server, not a call into the
   * process: reads asked at the same moment are then worth joining into one
   * statement (`platform/storage/joined-reads.ts`: an inbox's sender reads, home pages, statuses read by
   * id), where on an embedded engine the join costs more than the statements it spares. The
   * joined statements are written for PostgreSQL (a lateral join, `json_to_recordset`).
   * Absent: false.
   */
  readonly serverRoundTrips?: boolean;
  /**
   * A transaction opened with `concurrentStatements` sends the statements its
   * handle is given at once together, without waiting for the answer to one
   * before sending the next (PostgreSQL's pipelining): batched writes then
   * give a batch's independent writes at once (`platform/storage/batched-writes.ts`).
   * Absent: false, and such a transaction runs its statements one after
   * another, as any other.
   */
  readonly pipelining?: boolean;
}

export interface TransactionOptions {
  /**
   * `work` gives its handle statements from parts that do not wait for each
   * other (a batch's independent writes, under `Promise.all`). Where the
   * engine has `pipelining`, those given at the same moment go to the
   * database together. `work` must not return while a statement it gave is
   * unanswered: the transaction ends when it returns.
   */
  readonly concurrentStatements?: boolean;
}

export interface ConsumeOnceInput {
  readonly kind: string;
  readonly secretHash: string;
  readonly now: Date;
}

export interface CounterState {
  /** Hits counted in the current window, this one included. */
  readonly count: number;
  /** When the current window ends. */
  readonly windowEndsAt: Date;
}

export interface ColumnDescription {
  readonly name: string;
  /** The declared type, lower-cased as the engine reports it. */
  readonly type: string;
  readonly nullable: boolean;
}

export interface IndexDescription {
  readonly name: string;
  readonly unique: boolean;
  readonly columns: readonly string[];
  /** The predicate of a partial index as the engine prints it back, else null. */
  readonly where: string | null;
}

export interface TableDescription {
  readonly name: string;
  readonly columns: readonly ColumnDescription[];
  /** Indexes created by migrations (not those the engine makes for keys). */
  readonly indexes: readonly IndexDescription[];
  readonly primaryKey: readonly string[];
}

/** The schema as the engine reports it, for the test that keeps the engines' migrations in step. */
export interface SchemaDescription {
  readonly tables: readonly TableDescription[];
}

export interface StorageInfo {
  readonly engine: string;
  readonly version: string;
  /** Bytes on disk, when the engine can tell. */
  readonly sizeBytes: number | null;
}

export interface MigrationReport {
  /** Names of the migrations applied by this call, in order. */
  readonly applied: readonly string[];
}

/**
 * The storage port: a Kysely database on some SQL engine, plus the few
 * operations that must be atomic and so are written natively per engine.
 * Repositories in `core/src/storage` are written once against `db`.
 */
export interface Storage {
  readonly db: Kysely<Database>;
  readonly capabilities: StorageCapabilities;
  /** Runs `work` in one transaction; rolled back if it throws. */
  transaction<T>(work: (trx: Kysely<Database>) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /**
   * Applies those of `migrations` not applied yet, in order, rendered for
   * this engine (core's `migrationStatements`). Safe to call at every start.
   */
  migrate(migrations: readonly MigrationSpec[]): Promise<MigrationReport>;
  /**
   * Marks an unexpired, unconsumed one-time secret of `kind` with that hash as
   * consumed and returns it, in one atomic step: of two concurrent calls, at
   * most one gets the row. Null when there is none to consume.
   */
  consumeOnce(input: ConsumeOnceInput): Promise<OneTimeSecretRow | null>;
  /**
   * Counts one hit on `key` in a fixed window of `windowSeconds`, atomically;
   * a new window starts when the previous one has ended.
   */
  incrementCounter(key: string, windowSeconds: number, now: Date): Promise<CounterState>;
  describeSchema(): Promise<SchemaDescription>;
  info(): Promise<StorageInfo>;
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  /**
   * Whether `error` says the database could not answer for now (a lost or refused connection, a server shutting
   * down, a lock held too long), not that a statement was wrong. A job that fails so is run again later without the
   * attempt counting against it. Absent: no error is taken for that.
   */
  isUnavailable?(error: unknown): boolean;
  close(): Promise<void>;
}
