/**
 * A migration as data: its tables, columns and indexes described once and
 * rendered by each storage adapter for its engine (core's
 * `migrationStatements`), so the SQLite and PostgreSQL schemas of one
 * migration cannot drift apart. Types are the logical ones of
 * `storage/schema.ts`: timestamps as ISO text on SQLite and `timestamptz` on
 * PostgreSQL, JSON as text and `jsonb`, booleans as 0/1 and `boolean`.
 *
 * A migration is frozen once released: write a new one rather than edit it.
 */
export type Dialect = "sqlite" | "postgres";

export type ColumnType = "text" | "timestamp" | "json" | "bool" | "int" | "bigint" | "real";

export interface ColumnSpec {
  readonly type: ColumnType;
  readonly nullable?: boolean;
  /** A literal default: a string, number or boolean, rendered for the engine. */
  readonly default?: string | number | boolean;
  /** `table(column)`; deleting the referenced row deletes this one (or sets it null when `onDelete` says so). */
  readonly references?: string;
  readonly onDelete?: "cascade" | "set null";
}

export interface IndexSpec {
  readonly name: string;
  readonly columns: readonly string[];
  readonly unique?: boolean;
  /**
   * A predicate making the index partial, written the same on both engines
   * (`column IS NOT NULL`). Only queries whose WHERE implies it can use the
   * index, and an ON CONFLICT target must repeat it.
   */
  readonly where?: string;
}

export interface TableSpec {
  readonly name: string;
  readonly columns: Readonly<Record<string, ColumnSpec>>;
  readonly primaryKey: readonly string[];
  readonly indexes?: readonly IndexSpec[];
  /**
   * SQLite: the table is kept in its primary key's b-tree (WITHOUT ROWID), one
   * tree to write instead of a table and its key's index; for small rows
   * found by their key. PostgreSQL has no such choice and ignores it.
   */
  readonly withoutRowid?: boolean;
}

export interface AddColumnSpec {
  readonly table: string;
  readonly column: string;
  readonly spec: ColumnSpec;
}

/** A value of an inserted row, rendered as a literal for the engine (a boolean as 0/1 on SQLite). */
export type RowValue = string | number | boolean | null;

/** One row a migration inserts. */
export interface RowSpec {
  readonly table: string;
  readonly values: Readonly<Record<string, RowValue>>;
}

/** Statements written for each engine, where the engines differ in kind. */
export interface EngineStatements {
  readonly sqlite: readonly string[];
  readonly postgres: readonly string[];
}

export interface MigrationSpec {
  /**
   * The name the engine's migration table records, `NNNN_what`. Migrations
   * run in the order of their names, and a list of them must be in that
   * order, so that a later migration (a module's too) takes the next number.
   */
  readonly name: string;
  readonly tables?: readonly TableSpec[];
  readonly addColumns?: readonly AddColumnSpec[];
  readonly indexes?: readonly (IndexSpec & { readonly table: string })[];
  /** Indexes dropped before anything else, to be made again differently. */
  readonly dropIndexes?: readonly string[];
  /**
   * Statements that fill the added columns of existing rows, run before the
   * indexes are made: an index is then built once over the filled rows
   * instead of kept up through every row's update.
   */
  readonly fill?: EngineStatements;
  /**
   * Statements the DSL cannot describe because the engines differ in kind
   * (full-text virtual tables and triggers, GIN indexes), run after the
   * indexes. The schema-parity test leaves out the kinds of object only one
   * engine has (virtual tables, GIN indexes, triggers).
   */
  readonly raw?: EngineStatements;
  /**
   * Rows inserted last (the built-in roles). A function, called each time the
   * migration is rendered, so that ids and times are those of the moment it
   * runs.
   */
  readonly rows?: () => readonly RowSpec[];
}
