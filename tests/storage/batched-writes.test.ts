import type { Storage } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type BatchedWriteKind, BatchedWrites } from "../../packages/core/src/storage/batched-writes.js";

/** Writes that follow a commit are committed in batches; a failing piece of work fails alone. */
describe("batched writes", () => {
  let storage: Storage;
  let transactions: number;
  let batched: BatchedWrites;
  let calls: string[][];

  beforeEach(async () => {
    storage = createSqliteStorage({ filename: ":memory:" });
    await sql`CREATE TABLE items (name TEXT PRIMARY KEY)`.execute(storage.db);
    transactions = 0;
    calls = [];
    batched = new BatchedWrites({
      transaction: (work) => {
        transactions++;
        return storage.transaction(work);
      },
    });
  });
  afterEach(() => storage.close());

  /** Inserts a batch's names in one statement; "refused" is written, then refused, so the batch rolls back. */
  const items: BatchedWriteKind<string> = {
    async write(trx, names) {
      calls.push([...names]);
      await sql`INSERT INTO items (name) VALUES ${sql.join(names.map((name) => sql`(${name})`))}`.execute(trx);
      if (names.includes("refused")) throw new Error("refused");
    },
  };
  const insert = (name: string) => batched.write(items, name);
  const names = async () =>
    (await sql<{ name: string }>`SELECT name FROM items ORDER BY name`.execute(storage.db)).rows.map((row) => row.name);

  it("commits items added in the same turn in one transaction, each kind writing its items at once", async () => {
    const others: string[] = [];
    const other: BatchedWriteKind<string> = {
      async write(_trx, names) {
        others.push(names.join());
      },
    };
    await Promise.all([insert("a"), batched.write(other, "x"), insert("b"), batched.write(other, "y"), insert("c")]);
    expect(await names()).toEqual(["a", "b", "c"]);
    expect(calls).toEqual([["a", "b", "c"]]);
    expect(others).toEqual(["x,y"]);
    expect(transactions).toBe(1);
  });

  it("writes items added after a batch has begun in a later batch, without waiting for more", async () => {
    const first = insert("a");
    // Added once the first batch has begun: it cannot join it.
    const second = new Promise<void>((resolve, reject) => setImmediate(() => insert("b").then(resolve, reject)));
    await Promise.all([first, second]);
    expect(await names()).toEqual(["a", "b"]);
    expect(transactions).toBe(2);
    await insert("c");
    expect(transactions).toBe(3);
  });

  it("fails only the item that failed, and keeps none of its writes", async () => {
    const results = await Promise.allSettled([insert("a"), insert("refused"), insert("b")]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ message: "refused" });
    expect(await names()).toEqual(["a", "b"]);
    // The batch, then each item alone.
    expect(calls).toEqual([["a", "refused", "b"], ["a"], ["refused"], ["b"]]);
  });

  it("fails an item whose statement the database refuses, and writes the next batch", async () => {
    await insert("a");
    await expect(insert("a")).rejects.toThrow();
    await insert("b");
    expect(await names()).toEqual(["a", "b"]);
  });

  it("gives each writer its own result once its batch is committed", async () => {
    const lengths: BatchedWriteKind<string, number> = {
      async write(trx, names) {
        await sql`INSERT INTO items (name) VALUES ${sql.join(names.map((name) => sql`(${name})`))}`.execute(trx);
        return names.map((name) => name.length);
      },
    };
    expect(await Promise.all([batched.write(lengths, "a"), batched.write(lengths, "bbb")])).toEqual([1, 3]);
    expect(transactions).toBe(1);
  });

  it("runs transactions of the same moment in one, each with its own result, and a failing one alone", async () => {
    const work = (name: string) =>
      batched.transaction(async (trx) => {
        await sql`INSERT INTO items (name) VALUES (${name})`.execute(trx);
        const { rows } = await sql<{ n: number }>`SELECT count(*) AS n FROM items`.execute(trx);
        return `${name}:${rows[0]?.n}`;
      });
    expect(await Promise.all([work("a"), work("b")])).toEqual(["a:1", "b:2"]);
    expect(transactions).toBe(1);
    // "a" again breaks the key: the batch is rolled back and each runs alone, "c" seeing only what was committed.
    const results = await Promise.allSettled([work("a"), work("c")]);
    expect(results.map((result) => result.status)).toEqual(["rejected", "fulfilled"]);
    expect((results[1] as PromiseFulfilledResult<string>).value).toBe("c:3");
    expect(await names()).toEqual(["a", "b", "c"]);
    expect(transactions).toBe(4);
  });
});
