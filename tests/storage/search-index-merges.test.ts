/**
 * SQLite's full-text indexes merge their segments sixteen at a time
 * (migration 0021): with FTS5's default of four, every statement that followed
 * a post's insert in a batch of incoming activities paid for merging, up to
 * twenty times the statement's own cost on a large index.
 */
import { coreMigrations } from "@kith/core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("full-text index merges on SQLite", () => {
  let dir: string;
  let storage: Storage;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kith-fts-"));
    storage = createSqliteStorage({ filename: join(dir, "kith.sqlite") });
    await storage.migrate(coreMigrations);
  });

  afterAll(async () => {
    await storage?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(["statuses_fts", "accounts_fts"])("%s merges sixteen segments at a time", async (table) => {
    const { rows } = await sql<{ v: number }>`SELECT v FROM ${sql.table(`${table}_config`)} WHERE k = 'automerge'`.execute(storage.db);
    expect(rows.map((row) => Number(row.v))).toEqual([16]);
  });

  it("still finds every post written among other statements of one transaction", async () => {
    const now = "2026-11-01T00:00:00.000Z";
    await sql`INSERT INTO accounts (id, username, acct_key, created_at, updated_at) VALUES ('a1', 'a1', 'a1', ${now}, ${now})`.execute(
      storage.db,
    );
    await storage.transaction(async (trx) => {
      for (let i = 0; i < 40; i++) {
        await trx
          .insertInto("statuses")
          .values({ id: `s${String(i).padStart(3, "0")}`, account_id: "a1", text: `lantern number ${i}`, created_at: now, updated_at: now })
          .execute();
        // A statement between two posts: what made FTS5 write (and merge) a segment for each post.
        await trx.selectFrom("accounts").select("id").where("id", "=", "a1").execute();
      }
    });
    const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM statuses_fts WHERE statuses_fts MATCH 'lantern'`.execute(
      storage.db,
    );
    expect(Number(rows[0]?.n)).toBe(40);
  });
});
