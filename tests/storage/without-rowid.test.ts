import { coreMigrations } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { tableStatements } from "../../packages/core/src/storage/migrations/ddl.js";

/** A table described WITHOUT ROWID is one on SQLite and a plain table on PostgreSQL, with the same columns and key. */
describe("tables kept in their primary key's b-tree", () => {
  const table = {
    name: "marks",
    columns: { id: { type: "text" as const }, at: { type: "timestamp" as const } },
    primaryKey: ["id"],
    withoutRowid: true,
  };

  it("are rendered WITHOUT ROWID on SQLite only", () => {
    expect(tableStatements(table, "sqlite")[0]).toMatch(/\) STRICT, WITHOUT ROWID$/);
    expect(tableStatements(table, "postgres")[0]).not.toMatch(/ROWID/);
    expect(tableStatements({ ...table, withoutRowid: false }, "sqlite")[0]).toMatch(/\) STRICT$/);
  });

  it("hold the pending reactions of new posts on SQLite, described like any table", async () => {
    const storage = createSqliteStorage({ filename: ":memory:" });
    try {
      await storage.migrate(coreMigrations);
      const { rows } = await sql<{ sql: string }>`SELECT sql FROM sqlite_master WHERE name = 'pending_post_reactions'`.execute(storage.db);
      expect(rows[0]?.sql).toMatch(/WITHOUT ROWID$/);
      const described = (await storage.describeSchema()).tables.find((t) => t.name === "pending_post_reactions");
      expect(described?.primaryKey).toEqual(["status_id"]);
      expect(described?.indexes).toEqual([]);
    } finally {
      await storage.close();
    }
  });
});
