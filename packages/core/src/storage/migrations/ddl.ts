/**
 * Renders migration specs (`ports/migration-spec.ts`) as SQL for one engine.
 * The rendering of a released migration must not change: a database made by
 * it and one made by its rendering today must stay alike (the schema-parity
 * test builds both).
 */
import type { ColumnSpec, ColumnType, Dialect, IndexSpec, MigrationSpec, RowSpec, RowValue, TableSpec } from "../../ports/migration-spec.js";

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

/** A row's value as a literal; an untyped string literal takes the column's type on both engines (`jsonb` too). */
function rowLiteral(value: RowValue, dialect: Dialect): string {
  if (value === null) return "NULL";
  if (typeof value === "boolean") return dialect === "sqlite" ? (value ? "1" : "0") : String(value);
  if (typeof value === "number") return String(value);
  return `'${value.replaceAll("'", "''")}'`;
}

function insertSql(row: RowSpec, dialect: Dialect): string {
  const columns = Object.keys(row.values);
  const values = Object.values(row.values).map((value) => rowLiteral(value, dialect));
  return `INSERT INTO ${row.table} (${columns.join(", ")}) VALUES (${values.join(", ")})`;
}

/**
 * The statements of a migration for one engine, in order: dropped indexes,
 * tables, added columns, their filling, indexes, the raw ones, then its rows
 * (made by this call, with ids and times of now).
 */
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
    ...(migration.rows?.() ?? []).map((row) => insertSql(row, dialect)),
  ];
}
