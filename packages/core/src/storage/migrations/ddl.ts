/**
 * One description of a migration's tables, rendered for each engine, so the
 * SQLite and PostgreSQL migrations of a number cannot drift apart. Types are
 * the logical ones of `storage/schema.ts`: timestamps as ISO text on SQLite
 * and `timestamptz` on PostgreSQL, JSON as text and `jsonb`, booleans as 0/1
 * and `boolean`.
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

export interface MigrationSpec {
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
  readonly fill?: { readonly sqlite: readonly string[]; readonly postgres: readonly string[] };
  /**
   * Statements the DSL cannot describe because the engines differ in kind
   * (full-text virtual tables and triggers, GIN indexes), run last. Objects
   * made here are engine-specific and left out of the parity comparison.
   */
  readonly raw?: { readonly sqlite: readonly string[]; readonly postgres: readonly string[] };
}

const TYPES: Record<Dialect, Record<ColumnType, string>> = {
  sqlite: { text: "TEXT", timestamp: "TEXT", json: "TEXT", bool: "INTEGER", int: "INTEGER", bigint: "INTEGER", real: "REAL" },
  postgres: {
    text: "text",
    timestamp: "timestamptz",
    json: "jsonb",
    bool: "boolean",
    int: "integer",
    bigint: "bigint",
    real: "double precision",
  },
};

function literal(value: string | number | boolean, type: ColumnType, dialect: Dialect): string {
  if (typeof value === "boolean") return dialect === "sqlite" ? (value ? "1" : "0") : String(value);
  if (typeof value === "number") return String(value);
  const quoted = `'${value.replaceAll("'", "''")}'`;
  return dialect === "postgres" && type === "json" ? `${quoted}::jsonb` : quoted;
}

function columnSql(name: string, spec: ColumnSpec, dialect: Dialect, inlinePrimaryKey: boolean): string {
  const parts = [name, TYPES[dialect][spec.type]];
  if (inlinePrimaryKey) parts.push("PRIMARY KEY");
  if (!spec.nullable) parts.push("NOT NULL");
  if (spec.default !== undefined) parts.push(`DEFAULT ${literal(spec.default, spec.type, dialect)}`);
  if (spec.references) {
    const [table, column] = spec.references.replace(")", "").split("(");
    parts.push(`REFERENCES ${table} (${column})`);
    parts.push(spec.onDelete === "set null" ? "ON DELETE SET NULL" : "ON DELETE CASCADE");
  }
  return parts.join(" ");
}

function indexSql(table: string, index: IndexSpec): string {
  const where = index.where === undefined ? "" : ` WHERE ${index.where}`;
  return `CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${index.name} ON ${table} (${index.columns.join(", ")})${where}`;
}

export function tableStatements(table: TableSpec, dialect: Dialect): string[] {
  const single = table.primaryKey.length === 1 ? table.primaryKey[0] : undefined;
  const lines = Object.entries(table.columns).map(([name, spec]) => columnSql(name, spec, dialect, name === single));
  if (!single) lines.push(`PRIMARY KEY (${table.primaryKey.join(", ")})`);
  const options = dialect === "sqlite" ? (table.withoutRowid ? " STRICT, WITHOUT ROWID" : " STRICT") : "";
  const create = `CREATE TABLE ${table.name} (\n    ${lines.join(",\n    ")}\n  )${options}`;
  return [create, ...(table.indexes ?? []).map((index) => indexSql(table.name, index))];
}

/** The statements of a migration for one engine, in order: dropped indexes, tables, added columns, their filling, indexes, then the raw ones. */
export function migrationStatements(migration: MigrationSpec, dialect: Dialect): string[] {
  return [
    ...(migration.dropIndexes ?? []).map((name) => `DROP INDEX ${name}`),
    ...(migration.tables ?? []).flatMap((table) => tableStatements(table, dialect)),
    ...(migration.addColumns ?? []).map(
      ({ table, column, spec }) => `ALTER TABLE ${table} ADD COLUMN ${columnSql(column, spec, dialect, false)}`,
    ),
    ...(migration.fill?.[dialect] ?? []),
    ...(migration.indexes ?? []).map((index) => indexSql(index.table, index)),
    ...(migration.raw?.[dialect] ?? []),
  ];
}
