import { coreMigrations } from "@kith/core";
import type { Storage } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TAG_USE_PRECISION_MS, ensureTags } from "../../packages/core/src/modules/statuses/statuses-store.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

/**
 * The tags of a post: created when new, read when not, and marked used when their last use is older than
 * `TAG_USE_PRECISION_MS`, on both engines. On PostgreSQL a tag in use is neither written nor locked by each post that
 * uses it, so posts with the same tag do not wait for each other's commits.
 */

const HOUR = 3_600_000;
const at = (hours: number) => new Date(Date.UTC(2026, 10, 1) + hours * HOUR).toISOString();

function defineCases(
  open: () => Promise<{ storage: Storage; close(): Promise<void> }>,
  options: { readonly concurrentTransactions: boolean },
): void {
  let storage: Storage;
  let close: () => Promise<void>;
  let next = 0;
  const newId = () => `tag${String(++next).padStart(4, "0")}`;

  beforeAll(async () => {
    ({ storage, close } = await open());
  });
  afterAll(async () => {
    await close?.();
  });
  beforeEach(async () => {
    await storage.db.deleteFrom("tags").execute();
  });

  const lastUse = async (name: string) => {
    const row = await storage.db.selectFrom("tags").select("last_status_at").where("name", "=", name).executeTakeFirstOrThrow();
    return row.last_status_at === null ? null : new Date(row.last_status_at).toISOString();
  };

  it("creates new tags, reads existing ones, and gives each name one id", async () => {
    const first = await ensureTags(storage.db, [{ name: "kith", displayName: "Kith" }], newId, at(0));
    const both = await ensureTags(
      storage.db,
      [
        { name: "kith", displayName: "KITH" },
        { name: "fedi", displayName: "Fedi" },
        { name: "fedi", displayName: "fedi" },
      ],
      newId,
      at(1),
    );
    expect([...both.keys()].sort()).toEqual(["fedi", "kith"]);
    expect(both.get("kith")).toBe(first.get("kith"));
    expect(await storage.db.selectFrom("tags").select("display_name").where("name", "=", "kith").executeTakeFirst()).toEqual({
      display_name: "Kith",
    });
    expect(await ensureTags(storage.db, [], newId, at(1))).toEqual(new Map());
  });

  it("marks a tag used when its last use is older than the precision, not on every use", async () => {
    await ensureTags(storage.db, [{ name: "kith", displayName: "kith" }], newId, at(0));
    expect(await lastUse("kith")).toBe(at(0));
    await ensureTags(storage.db, [{ name: "kith", displayName: "kith" }], newId, at(11));
    expect(await lastUse("kith")).toBe(at(0));
    const later = at(TAG_USE_PRECISION_MS / HOUR + 1);
    await ensureTags(storage.db, [{ name: "kith", displayName: "kith" }], newId, later);
    expect(await lastUse("kith")).toBe(later);
    // A tag made without a use (followed before anyone used it) is marked at its first use.
    await storage.db.updateTable("tags").set({ last_status_at: null }).where("name", "=", "kith").execute();
    await ensureTags(storage.db, [{ name: "kith", displayName: "kith" }], newId, at(30));
    expect(await lastUse("kith")).toBe(at(30));
  });

  it.runIf(options.concurrentTransactions)("leaves a tag in use unlocked while a post that used it is still open", async () => {
    const busy = [{ name: "busy", displayName: "busy" }];
    const made = await ensureTags(storage.db, busy, newId, at(0));
    let used: () => void = () => {};
    const usedSignal = new Promise<void>((resolve) => {
      used = resolve;
    });
    let commit: () => void = () => {};
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    const open = storage.transaction(async (trx) => {
      await ensureTags(trx, busy, newId, at(1));
      used();
      await committed;
    });
    await usedSignal;
    try {
      // An upsert would wait here for the open post's commit, and fail after the lock timeout.
      const second = await storage.transaction(async (trx) => {
        await sql`set local lock_timeout = '1s'`.execute(trx);
        return ensureTags(trx, busy, newId, at(2));
      });
      expect(second.get("busy")).toBe(made.get("busy"));
    } finally {
      commit();
      await open;
    }
  });

  it("gives every one of many posts at once the same tag", async () => {
    const found = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        storage.transaction((trx) =>
          ensureTags(
            trx,
            [
              { name: "busy", displayName: "busy" },
              { name: `own${i}`, displayName: "own" },
            ],
            newId,
            at(i),
          ),
        ),
      ),
    );
    const ids = new Set(found.map((tags) => tags.get("busy")));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^tag/);
    expect(found.every((tags) => tags.size === 2)).toBe(true);
    expect((await storage.db.selectFrom("tags").select("id").execute()).length).toBe(13);
  });
}

describe("tags of a post, on SQLite", () =>
  defineCases(
    async () => {
      const storage = createSqliteStorage({ filename: ":memory:" });
      await storage.migrate(coreMigrations);
      return { storage, close: () => storage.close() };
    },
    { concurrentTransactions: false },
  ));

describeIfPostgres("tags of a post, on PostgreSQL", () =>
  defineCases(
    async () => {
      const database: FreshPostgresDatabase = await freshPostgresDatabase();
      const storage = createPostgresStorage({ connectionString: database.url, max: 6 });
      await storage.migrate(coreMigrations);
      return {
        storage,
        close: async () => {
          await storage.close();
          await database.drop();
        },
      };
    },
    { concurrentTransactions: true },
  ),
);
