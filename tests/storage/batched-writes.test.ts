import type { Storage } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BatchedWrites } from "../../packages/core/src/storage/batched-writes.js";

/** Writes that follow a commit are committed in batches; a failing piece of work fails alone. */
describe("batched writes", () => {
  let storage: Storage;
  let transactions: number;
  let batched: BatchedWrites;

  beforeEach(async () => {
    storage = createSqliteStorage({ filename: ":memory:" });
    await sql`CREATE TABLE items (name TEXT PRIMARY KEY)`.execute(storage.db);
    transactions = 0;
    batched = new BatchedWrites({
      transaction: (work) => {
        transactions++;
        return storage.transaction(work);
      },
    });
  });
  afterEach(() => storage.close());

  const insert = (name: string) => batched.write((trx) => sql`INSERT INTO items (name) VALUES (${name})`.execute(trx).then(() => {}));
  const names = async () =>
    (await sql<{ name: string }>`SELECT name FROM items ORDER BY name`.execute(storage.db)).rows.map((row) => row.name);

  it("commits work added in the same turn in one transaction", async () => {
    await Promise.all([insert("a"), insert("b"), insert("c")]);
    expect(await names()).toEqual(["a", "b", "c"]);
    expect(transactions).toBe(1);
  });

  it("writes work added after a batch has begun in a later batch, without waiting for more", async () => {
    const first = insert("a");
    // Added once the first batch has begun: it cannot join it.
    const second = new Promise<void>((resolve, reject) => setImmediate(() => insert("b").then(resolve, reject)));
    await Promise.all([first, second]);
    expect(await names()).toEqual(["a", "b"]);
    expect(transactions).toBe(2);
    await insert("c");
    expect(transactions).toBe(3);
  });

  it("fails only the piece of work that failed, and keeps none of its writes", async () => {
    const failing = batched.write(async (trx) => {
      await sql`INSERT INTO items (name) VALUES ('half-done')`.execute(trx);
      throw new Error("refused");
    });
    const results = await Promise.allSettled([insert("a"), failing, insert("b")]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: "refused" });
    expect(await names()).toEqual(["a", "b"]);
  });

  it("fails work whose statement the database refuses, and writes the next batch", async () => {
    await insert("a");
    await expect(insert("a")).rejects.toThrow();
    await insert("b");
    expect(await names()).toEqual(["a", "b"]);
  });
});
