import type { IndexDescription, SchemaDescription, Storage } from "@kith/core";
import { coreMigrations } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

/** Migration 0018's indexes, as both engines must describe them. */
const PARTIAL: Readonly<Record<string, readonly [table: string, IndexDescription]>> = {
  statuses_uri_idx: ["statuses", { name: "statuses_uri_idx", unique: true, columns: ["uri"], where: "uri IS NOT NULL" }],
  statuses_reply_idx: [
    "statuses",
    { name: "statuses_reply_idx", unique: false, columns: ["in_reply_to_id", "id"], where: "in_reply_to_id IS NOT NULL" },
  ],
  statuses_reblog_idx: [
    "statuses",
    { name: "statuses_reblog_idx", unique: true, columns: ["reblog_of_id", "account_id"], where: "reblog_of_id IS NOT NULL" },
  ],
  home_feed_reblog_idx: [
    "home_feed",
    { name: "home_feed_reblog_idx", unique: false, columns: ["reblog_of_id", "account_id"], where: "reblog_of_id IS NOT NULL" },
  ],
};

/**
 * The lookups that use each index, as the stores write them: each must
 * still reach its index, since a partial index serves only a query whose
 * condition implies the predicate (`=`, `IN` and a join on the column do).
 */
const LOOKUPS: readonly (readonly [index: string, query: string])[] = [
  ["statuses_uri_idx", "SELECT * FROM statuses WHERE uri = 'https://remote.example/notes/1'"],
  ["statuses_reply_idx", "SELECT account_id FROM statuses WHERE in_reply_to_id = '1'"],
  [
    "statuses_reply_idx",
    `WITH RECURSIVE tree (id, depth) AS (
       SELECT s.id, 1 FROM statuses s WHERE s.in_reply_to_id = '1'
       UNION ALL SELECT c.id, tree.depth + 1 FROM statuses c JOIN tree ON c.in_reply_to_id = tree.id WHERE tree.depth < 5)
     SELECT id FROM tree`,
  ],
  ["statuses_reblog_idx", "SELECT account_id FROM statuses WHERE reblog_of_id = '1'"],
  ["statuses_reblog_idx", "SELECT * FROM statuses WHERE reblog_of_id IN ('1', '2')"],
  ["statuses_reblog_idx", "SELECT 1 FROM statuses WHERE reblog_of_id = '1' AND account_id = 'a'"],
  ["home_feed_reblog_idx", "SELECT account_id FROM home_feed WHERE reblog_of_id = '1' AND account_id IN ('a', 'b')"],
  ["home_feed_reblog_idx", "SELECT status_id FROM home_feed WHERE reblog_of_id IN ('1', '2')"],
];

function partialIndexes(schema: SchemaDescription): Record<string, IndexDescription | undefined> {
  return Object.fromEntries(
    Object.entries(PARTIAL).map(([name, [table]]) => [
      name,
      schema.tables.find((t) => t.name === table)?.indexes.find((index) => index.name === name),
    ]),
  );
}

const expected = Object.fromEntries(Object.entries(PARTIAL).map(([name, [, index]]) => [name, index]));

const before0018 = coreMigrations.filter((migration) => migration.name < "0018");

describe("migration 0018 on SQLite: partial indexes", () => {
  it("are made on a fresh database", async () => {
    const storage = createSqliteStorage({ filename: ":memory:" });
    try {
      await storage.migrate(coreMigrations);
      expect(partialIndexes(await storage.describeSchema())).toEqual(expected);
    } finally {
      await storage.close();
    }
  });

  it("replace the full indexes of a database migrated before", async () => {
    const storage = createSqliteStorage({ filename: ":memory:" });
    try {
      await storage.migrate(before0018);
      const full = partialIndexes(await storage.describeSchema());
      expect(full.statuses_uri_idx?.where).toBeNull();
      expect((await storage.migrate(coreMigrations)).applied).toContain("0018_partial_indexes");
      expect(partialIndexes(await storage.describeSchema())).toEqual(expected);
    } finally {
      await storage.close();
    }
  });

  it("still serve every lookup that used them", async () => {
    const storage = createSqliteStorage({ filename: ":memory:" });
    try {
      await storage.migrate(coreMigrations);
      for (const [index, query] of LOOKUPS) {
        const { rows } = await sql.raw<{ detail: string }>(`EXPLAIN QUERY PLAN ${query}`).execute(storage.db);
        expect(
          rows.some((row) => row.detail.includes(`INDEX ${index} `)),
          `${query}\n${rows.map((r) => r.detail).join("\n")}`,
        ).toBe(true);
      }
    } finally {
      await storage.close();
    }
  });
});

describeIfPostgres("migration 0018 on PostgreSQL: partial indexes", () => {
  let database: FreshPostgresDatabase;
  let storage: Storage;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    storage = createPostgresStorage({ connectionString: database.url, max: 1 });
  });

  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it("replace the full indexes of a database migrated before", async () => {
    await storage.migrate(before0018);
    expect(partialIndexes(await storage.describeSchema()).statuses_uri_idx?.where).toBeNull();
    expect((await storage.migrate(coreMigrations)).applied).toContain("0018_partial_indexes");
    expect(partialIndexes(await storage.describeSchema())).toEqual(expected);
  });

  it("still serve every lookup that used them", async () => {
    // On empty tables the planner would scan; forbidding that shows whether the index can serve the query at all.
    await storage.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL enable_seqscan = off`.execute(trx);
      await sql`SET LOCAL enable_bitmapscan = off`.execute(trx);
      for (const [index, query] of LOOKUPS) {
        const { rows } = await sql.raw<{ "QUERY PLAN": string }>(`EXPLAIN ${query}`).execute(trx);
        const plan = rows.map((row) => row["QUERY PLAN"]).join("\n");
        expect(plan.includes(` ${index} `) || plan.includes(` ${index}\n`) || plan.endsWith(` ${index}`), `${query}\n${plan}`).toBe(true);
      }
    });
  });
});
