import { coreMigrations } from "@kith/core";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@kith/core";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "./sqlite-storage.js";

/** SQLite's log page (4 096 bytes) with its frame header (24 bytes). */
const FRAME_BYTES = 4096 + 24;

async function pragmaValue(storage: Storage, name: string): Promise<unknown> {
  const { rows } = await sql.raw(`pragma ${name}`).execute(storage.db);
  return Object.values(rows[0] as Record<string, unknown>)[0];
}

/** Commits `count` transactions of one row each, the keys starting with `prefix`. */
async function commitRows(storage: Storage, count: number, prefix: string): Promise<void> {
  const now = new Date("2026-11-29T00:00:00Z").toISOString();
  for (let i = 0; i < count; i++) {
    await storage.db
      .insertInto("rate_counters")
      .values({ key: `${prefix}-${String(i).padStart(6, "0")}-${"x".repeat(1500)}`, count: 1, window_ends_at: now })
      .execute();
  }
}

describe("SQLite's write-ahead log on a file", () => {
  let dir: string;
  let storage: Storage | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "kith-wal-"));
  });
  afterEach(async () => {
    await storage?.close();
    storage = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it("is copied into the database every 4 000 pages unless told otherwise, and cut back past 64 MB", async () => {
    storage = createSqliteStorage({ filename: join(dir, "kith.sqlite") });
    expect(await pragmaValue(storage, "journal_mode")).toBe("wal");
    expect(await pragmaValue(storage, "wal_autocheckpoint")).toBe(4000);
    expect(await pragmaValue(storage, "journal_size_limit")).toBe(64 * 1024 * 1024);
  });

  it("stays within the pages it is given, where SQLite's default would let it grow", async () => {
    const filename = join(dir, "kith.sqlite");
    storage = createSqliteStorage({ filename, walCheckpointPages: 20 });
    await storage.migrate(coreMigrations);
    await commitRows(storage, 300, "a");
    // Each commit writes at least its table and index pages: 300 commits are several hundred pages of log, and a log
    // checkpointed every 20 pages is started again from its beginning instead of growing.
    expect(statSync(`${filename}-wal`).size).toBeLessThan(60 * FRAME_BYTES);
    await storage.close();

    storage = createSqliteStorage({ filename, walCheckpointPages: 100_000 });
    await commitRows(storage, 300, "b");
    expect(statSync(`${filename}-wal`).size).toBeGreaterThan(300 * FRAME_BYTES);
  });

  it("is not asked of a database in memory", async () => {
    storage = createSqliteStorage({ filename: ":memory:", walCheckpointPages: 20 });
    expect(await pragmaValue(storage, "journal_mode")).toBe("memory");
  });
});
