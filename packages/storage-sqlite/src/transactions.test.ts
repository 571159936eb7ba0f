import { coreMigrations } from "@kith/core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Storage } from "@kith/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSqliteStorage } from "./sqlite-storage.js";

/**
 * Two processes on one database file (the server and a command such as
 * `kith accounts create`), stood for by two connections.
 */
describe("SQLite transactions beside another process", () => {
  let dir: string;
  let server: Storage;
  let command: Storage;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), "kith-transactions-"));
    const filename = join(dir, "kith.sqlite");
    // Short waits for the lock, so that the test does not stand still for the default five seconds.
    server = createSqliteStorage({ filename, busyTimeoutMs: 50 });
    await server.migrate(coreMigrations);
    command = createSqliteStorage({ filename, busyTimeoutMs: 50 });
  });
  afterEach(async () => {
    await command.close();
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a transaction that reads, then writes, is not failed by a write the other made in between", async () => {
    const now = new Date("2026-11-27T00:00:00Z");
    let otherWrite: unknown = "not tried";
    await command.transaction(async (trx) => {
      await trx.selectFrom("rate_counters").select("key").execute();
      // The other process writes while this transaction has read: it waits for it (here: gives up after 50 ms).
      otherWrite = await server.incrementCounter("other", 60, now).then(
        () => "written",
        (error: unknown) => error,
      );
      await trx.insertInto("rate_counters").values({ key: "mine", count: 1, window_ends_at: now.toISOString() }).execute();
    });
    const keys = (await command.db.selectFrom("rate_counters").select("key").execute()).map((row) => row.key);
    expect(keys).toContain("mine");
    expect(otherWrite).toBeInstanceOf(Error);
    // Once this transaction is done, the other process writes as usual.
    await server.incrementCounter("other", 60, now);
  });
});
