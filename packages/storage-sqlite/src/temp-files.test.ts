import { coreMigrations } from "@kith/core";
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@kith/core";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "./sqlite-storage.js";

/** The files this process holds open that were deleted while open: how SQLite keeps its temporary files. */
function openDeletedFiles(): string[] {
  const links: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      links.push(readlinkSync(`/proc/self/fd/${fd}`));
    } catch {
      // Closed between the listing and the read.
    }
  }
  return links.filter((link) => link.endsWith("(deleted)"));
}

/**
 * A statement that changes many rows inside a longer transaction (a batch of
 * incoming activities, a status's fan-out) keeps the pages it changes in a
 * statement journal, to undo itself alone. Past 64 KB SQLite writes that
 * journal to a deleted file in /var/tmp, one write per page: it is kept in
 * memory instead.
 */
describe.runIf(process.platform === "linux")("SQLite's temporary files", () => {
  let dir: string;
  let storage: Storage;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "kith-temp-files-"));
    storage = createSqliteStorage({ filename: join(dir, "kith.sqlite") });
    await storage.migrate(coreMigrations);
  });
  afterEach(async () => {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a large statement in a transaction keeps its statement journal in memory", async () => {
    const before = openDeletedFiles();
    const rows = Array.from({ length: 2_000 }, (_, i) => ({
      key: `counter-${String(i).padStart(5, "0")}-${"x".repeat(100)}`,
      count: i,
      window_ends_at: "2026-11-27T00:00:00.000Z",
    }));
    let during: string[] = [];
    await storage.transaction(async (trx) => {
      for (let at = 0; at < rows.length; at += 200) await trx.insertInto("rate_counters").values(rows.slice(at, at + 200)).execute();
      // Rewrites every key (each one may collide, so the statement may have to undo itself) on pages this transaction changed.
      await sql`update rate_counters set key = key || '-renamed', count = count + 1`.execute(trx);
      during = openDeletedFiles();
    });
    expect(during.filter((link) => !before.includes(link))).toEqual([]);
    const renamed = await storage.db.selectFrom("rate_counters").select("key").where("key", "like", "%-renamed").execute();
    expect(renamed).toHaveLength(rows.length);
  });
});
