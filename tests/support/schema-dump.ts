import type { Storage } from "@kith/core";
import { sql } from "kysely";

/**
 * Everything a database's migrations made, as sorted lines: its objects'
 * definitions (engine-specific ones too: virtual tables, triggers,
 * functions, GIN indexes), the full-text settings, the migrations it
 * records, and the built-in roles they inserted (without their ids and
 * times). Two databases of one engine with equal dumps have the same schema.
 */
export async function schemaDump(storage: Storage): Promise<string[]> {
  const lines = storage.capabilities.engine === "sqlite" ? await sqliteObjects(storage) : await postgresObjects(storage);
  const migrations = await sql<{ name: string }>`SELECT name FROM kysely_migration`.execute(storage.db);
  lines.push(...migrations.rows.map((row) => `migration ${row.name}`));
  const roles = await sql<{ name: string; scope: string; built_in: unknown; resource: string | null; access: string | null }>`
    SELECT r.name, r.scope, r.built_in, p.resource, p.access
    FROM roles r LEFT JOIN role_permissions p ON p.role_id = r.id`.execute(storage.db);
  lines.push(...roles.rows.map((row) => `role ${row.name} ${row.scope} ${String(row.built_in)}: ${row.resource} ${row.access}`));
  return lines.sort();
}

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();

async function sqliteObjects(storage: Storage): Promise<string[]> {
  const objects = await sql<{ type: string; name: string; tbl_name: string; sql: string | null }>`
    SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'`.execute(storage.db);
  const lines = objects.rows.map((row) => `${row.type} ${row.name} on ${row.tbl_name}: ${oneLine(row.sql ?? "")}`);
  // FTS5 keeps its settings (automerge, migration 0021) as rows of `<table>_config`.
  const virtual = objects.rows.filter((row) => row.type === "table" && row.sql?.startsWith("CREATE VIRTUAL TABLE"));
  for (const { name } of virtual) {
    const settings = await sql<{ k: string; v: unknown }>`SELECT k, v FROM ${sql.table(`${name}_config`)}`.execute(storage.db);
    lines.push(...settings.rows.map((row) => `fts ${name} ${row.k} = ${String(row.v)}`));
  }
  return lines;
}

async function postgresObjects(storage: Storage): Promise<string[]> {
  const columns = await sql<{ line: string }>`
    SELECT c.relname || ' column ' || row_number() OVER (PARTITION BY c.oid ORDER BY a.attnum) || ' ' || a.attname || ' '
      || format_type(a.atttypid, a.atttypmod) || CASE WHEN a.attnotnull THEN ' not null' ELSE '' END
      || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '') AS line
    FROM pg_catalog.pg_attribute a
    JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
    LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped`.execute(
    storage.db,
  );
  const others = await sql<{ line: string }>`
    SELECT 'constraint ' || conrelid::regclass::text || ' ' || conname || ': ' || pg_get_constraintdef(oid) AS line
    FROM pg_catalog.pg_constraint WHERE connamespace = current_schema()::regnamespace
    UNION ALL
    SELECT 'index ' || indexname || ': ' || indexdef FROM pg_catalog.pg_indexes WHERE schemaname = current_schema()
    UNION ALL
    SELECT 'trigger ' || tgname || ': ' || pg_get_triggerdef(oid) FROM pg_catalog.pg_trigger WHERE NOT tgisinternal
    UNION ALL
    SELECT 'function ' || proname || ': ' || pg_get_functiondef(oid)
    FROM pg_catalog.pg_proc WHERE pronamespace = current_schema()::regnamespace`.execute(storage.db);
  return [...columns.rows, ...others.rows].map((row) => oneLine(row.line));
}
