import { readFileSync } from "node:fs";
import { coreMigrations, defaultModules, migrationsWithModules } from "@kith/core";
import type { MigrationSpec, RowSpec, SchemaDescription, Storage, TableDescription } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";
import { schemaDump } from "../support/schema-dump.js";

/**
 * Which SQLite type stands for each PostgreSQL type the migrations may use.
 * A PostgreSQL type missing here fails the test: add it, with the SQLite type
 * that holds the same values under the conventions of core's storage/schema.ts
 * (and a type parser in the PostgreSQL adapter if pg's default reading differs).
 */
const POSTGRES_TO_SQLITE: Readonly<Record<string, string>> = {
  text: "text",
  "timestamp with time zone": "text",
  jsonb: "text",
  boolean: "integer",
  integer: "integer",
  bigint: "integer",
  "double precision": "real",
  bytea: "blob",
};

const byName = <T extends { readonly name: string }>(items: readonly T[]): Map<string, T> =>
  new Map(items.map((item) => [item.name, item]));

function table(schema: SchemaDescription, name: string): TableDescription {
  const found = schema.tables.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`No table ${name}`);
  return found;
}

describeIfPostgres("schema parity: the SQLite and PostgreSQL migrations", () => {
  let sqlite: SchemaDescription;
  let postgres: SchemaDescription;

  beforeAll(async () => {
    const sqliteStorage = createSqliteStorage({ filename: ":memory:" });
    const database = await freshPostgresDatabase();
    const postgresStorage = createPostgresStorage({ connectionString: database.url });
    try {
      // The default modules' tables too: a module's migrations are rendered for both engines the same way.
      const migrations = migrationsWithModules(coreMigrations, defaultModules);
      await Promise.all([sqliteStorage.migrate(migrations), postgresStorage.migrate(migrations)]);
      [sqlite, postgres] = await Promise.all([sqliteStorage.describeSchema(), postgresStorage.describeSchema()]);
    } finally {
      await Promise.all([sqliteStorage.close(), postgresStorage.close()]);
      await database.drop();
    }
  });

  it("has the same tables", () => {
    expect(postgres.tables.length).toBeGreaterThan(0);
    expect(postgres.tables.map((t) => t.name).sort()).toEqual(sqlite.tables.map((t) => t.name).sort());
  });

  it("has the same columns, in the same order, with the same nullability", () => {
    for (const { name } of sqlite.tables) {
      const strip = (t: TableDescription) => t.columns.map((column) => ({ name: column.name, nullable: column.nullable }));
      expect(strip(table(postgres, name)), name).toEqual(strip(table(sqlite, name)));
    }
  });

  it("gives each column corresponding types under the mapping", () => {
    const mismatches: string[] = [];
    for (const pgTable of postgres.tables) {
      const sqliteColumns = byName(table(sqlite, pgTable.name).columns);
      for (const column of pgTable.columns) {
        const expected = POSTGRES_TO_SQLITE[column.type];
        const actual = sqliteColumns.get(column.name)?.type;
        if (expected === undefined) mismatches.push(`${pgTable.name}.${column.name}: PostgreSQL type "${column.type}" has no mapping`);
        else if (actual !== expected)
          mismatches.push(`${pgTable.name}.${column.name}: ${column.type} should be ${expected} on SQLite, is ${actual}`);
      }
    }
    expect(mismatches).toEqual([]);
  });

  it("has the same primary keys", () => {
    for (const { name } of sqlite.tables) expect(table(postgres, name).primaryKey, name).toEqual(table(sqlite, name).primaryKey);
  });

  it("has the same indexes: names, uniqueness, columns and partial-index predicates", () => {
    // PostgreSQL prints a predicate back with the casts it inferred (`'waiting'::text`); SQLite keeps the text as written.
    const uncast = (t: TableDescription) => t.indexes.map((index) => ({ ...index, where: index.where?.replace(/::\w+/g, "") ?? null }));
    for (const { name } of sqlite.tables) expect(uncast(table(postgres, name)), name).toEqual(uncast(table(sqlite, name)));
    expect(postgres.tables.flatMap((t) => t.indexes).length).toBeGreaterThan(0);
  });
});

interface FrozenMigration {
  readonly name: string;
  readonly sqlite: readonly string[];
  readonly postgres: readonly string[];
  readonly rows: readonly RowSpec[];
}

/** The migrations as the adapters ran them before core described them all, frozen (see the fixture's `about`). */
const earlier: readonly MigrationSpec[] = (
  JSON.parse(readFileSync(new URL("./fixtures/migrations-0001-0023.json", import.meta.url), "utf8")) as {
    migrations: readonly FrozenMigration[];
  }
).migrations.map(({ name, sqlite, postgres, rows }) => ({ name, raw: { sqlite, postgres }, rows: () => rows }));

/**
 * A database made by the earlier migrations, then migrated with core's list,
 * and one made by core's list alone: the first sees nothing to apply that it
 * had run already, and both end with the same schema.
 */
function upgradesAlike(open: () => Promise<{ storage: Storage; close(): Promise<void> }>): void {
  let upgraded: string[];
  let fresh: string[];
  let applied: readonly string[];

  beforeAll(async () => {
    const [before, made] = await Promise.all([open(), open()]);
    try {
      await before.storage.migrate(earlier);
      ({ applied } = await before.storage.migrate(coreMigrations));
      await made.storage.migrate(coreMigrations);
      [upgraded, fresh] = await Promise.all([schemaDump(before.storage), schemaDump(made.storage)]);
    } finally {
      await Promise.all([before.close(), made.close()]);
    }
  });

  it("applies none of the migrations the database had run", () => {
    const ran = new Set(earlier.map((migration) => migration.name));
    expect(applied).toEqual(coreMigrations.map((migration) => migration.name).filter((name) => !ran.has(name)));
  });

  it("ends with the schema, settings and built-in roles of a fresh database", () => {
    expect(fresh.length).toBeGreaterThan(earlier.length);
    expect(upgraded).toEqual(fresh);
  });
}

describe("upgrade from the earlier migrations: SQLite", () => {
  upgradesAlike(async () => {
    const storage = createSqliteStorage({ filename: ":memory:" });
    return { storage, close: () => storage.close() };
  });
});

describeIfPostgres("upgrade from the earlier migrations: PostgreSQL", () => {
  upgradesAlike(async () => {
    const database = await freshPostgresDatabase();
    const storage = createPostgresStorage({ connectionString: database.url });
    return {
      storage,
      close: async () => {
        await storage.close();
        await database.drop();
      },
    };
  });
});

describeIfPostgres("PostgreSQL reads rows as the schema's conventions say", () => {
  const T = "2026-03-01T10:00:00.000Z";
  let database: FreshPostgresDatabase;
  let storage: Storage;
  /** The same database through a session in another time zone, where the server's text output carries an offset. */
  let elsewhere: Storage;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    storage = createPostgresStorage({ connectionString: database.url });
    const url = new URL(database.url);
    url.searchParams.set("options", "-c TimeZone=Asia/Kolkata");
    elsewhere = createPostgresStorage({ connectionString: url.toString(), max: 1 });
    await storage.migrate(coreMigrations);
  });

  afterAll(async () => {
    await Promise.all([storage?.close(), elsewhere?.close()]);
    await database?.drop();
  });

  it("round-trips a timestamptz as the identical ISO string, in any session time zone", async () => {
    const values = [T, "2026-03-01T10:00:00.500Z", "1999-12-31T23:59:59.999Z", "0099-01-01T00:00:00.001Z"];
    for (const [i, value] of values.entries()) {
      await storage.db
        .insertInto("instance_settings")
        .values({ key: `k${i}`, value: "null", updated_at: value })
        .execute();
    }
    for (const db of [storage.db, elsewhere.db]) {
      const rows = await db.selectFrom("instance_settings").select(["key", "updated_at"]).orderBy("key").execute();
      expect(rows.map((row) => row.updated_at)).toEqual(values);
    }
    const { zone } = await elsewhere.db
      .selectNoFrom((eb) => eb.fn<string>("current_setting", [eb.val("TimeZone")]).as("zone"))
      .executeTakeFirstOrThrow();
    expect(zone).toBe("Asia/Kolkata");
  });

  it("reads timestamp, bigint, jsonb, json and boolean the SQLite way", async () => {
    const row = await storage.db
      .selectNoFrom((eb) => [
        eb.cast<string>(eb.val("2026-03-01 10:00:00.25"), "timestamp").as("plain"),
        eb.cast<number>(eb.val("9007199254740991"), "bigint").as("big"),
        eb.cast<string>(eb.val('{"a": [1, "b"]}'), "jsonb").as("jsonb"),
        eb.cast<string>(eb.val('{"a": [1, "b"]}'), "json").as("json"),
        eb.cast<boolean>(eb.val(true), "boolean").as("flag"),
      ])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      plain: "2026-03-01T10:00:00.250Z",
      big: 9007199254740991,
      jsonb: '{"a": [1, "b"]}',
      json: '{"a": [1, "b"]}',
      flag: true,
    });
    const { count } = await storage.db
      .selectFrom("roles")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .executeTakeFirstOrThrow();
    expect(count).toBeTypeOf("number");
    expect(count).toBeGreaterThan(0);
  });
});
