import type { Storage } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { type Kysely, sql } from "kysely";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type BatchedWriteKind, BatchedWrites, rolledBackInConflict, rowInserts } from "../../packages/core/src/platform/storage/batched-writes.js";
import type { Database } from "../../packages/core/src/ports/storage-schema.js";
import { type FreshPostgresDatabase, describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";

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
      db: storage.db,
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

  describe("a kind whose items one statement writes", () => {
    /** For each statement: whether it ran in a transaction, and its rows. */
    let statements: { inTransaction: boolean; names: string[] }[];
    beforeEach(() => {
      statements = [];
    });
    /** Lists of names, inserted three a statement. */
    const rows = rowInserts<string>(async (db, names) => {
      statements.push({ inTransaction: db.isTransaction, names: [...names] });
      await sql`INSERT INTO items (name) VALUES ${sql.join(names.map((name) => sql`(${name})`))}`.execute(db);
    }, 3);

    it("writes a batch of its items alone with that statement, outside any transaction", async () => {
      await Promise.all([batched.write(rows, ["a", "b"]), batched.write(rows, ["c"])]);
      expect(await names()).toEqual(["a", "b", "c"]);
      expect(statements).toEqual([{ inTransaction: false, names: ["a", "b", "c"] }]);
      expect(transactions).toBe(0);
    });

    it("writes in a transaction when another kind shares the batch, or the rows need more than one statement", async () => {
      await Promise.all([batched.write(rows, ["a"]), insert("b")]);
      expect(transactions).toBe(1);
      await batched.write(rows, ["c", "d", "e", "f"]);
      expect(transactions).toBe(2);
      expect(statements).toEqual([
        { inTransaction: true, names: ["a"] },
        { inTransaction: true, names: ["c", "d", "e"] },
        { inTransaction: true, names: ["f"] },
      ]);
      expect(await names()).toEqual(["a", "b", "c", "d", "e", "f"]);
    });

    it("fails only the list whose statement the database refuses, each list then written alone", async () => {
      await batched.write(rows, ["a"]);
      const results = await Promise.allSettled([batched.write(rows, ["b"]), batched.write(rows, ["a"]), batched.write(rows, ["c"])]);
      expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
      expect(await names()).toEqual(["a", "b", "c"]);
      expect(statements.map((statement) => statement.names)).toEqual([["a"], ["b", "a", "c"], ["b"], ["a"], ["c"]]);
      expect(statements.every((statement) => !statement.inTransaction)).toBe(true);
      expect(transactions).toBe(0);
    });
  });
});

/** Where transactions may be open at once, two batches are written at once, and a deadlock between them loses nothing. */
describeIfPostgres("batched writes, two batches at once on PostgreSQL", () => {
  let database: FreshPostgresDatabase;
  let storage: Storage;
  /** Whether the tests' role may set `deadlock_timeout` (superusers, or a grant), which the deadlock tests use if so. */
  let setsDeadlockTimeout = false;

  beforeAll(async () => {
    database = await freshPostgresDatabase();
    // Pipelining is what some of these tests are about: on even when a run turns the speed-ups off (KITH_OPTIMISATIONS_OFF).
    storage = createPostgresStorage({ connectionString: database.url, max: 4, pipelining: true });
    await sql`CREATE TABLE counters (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`.execute(storage.db);
    const { rows } = await sql<{ allowed: boolean }>`SELECT has_parameter_privilege('deadlock_timeout', 'SET') AS allowed`.execute(
      storage.db,
    );
    setsDeadlockTimeout = rows[0]?.allowed === true;
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });
  beforeEach(async () => {
    await sql`DELETE FROM counters`.execute(storage.db);
    await sql`INSERT INTO counters (name, n) VALUES ('x', 0), ('y', 0)`.execute(storage.db);
  });

  const counts = async () =>
    Object.fromEntries(
      (await sql<{ name: string; n: number }>`SELECT name, n FROM counters ORDER BY name`.execute(storage.db)).rows.map((row) => [
        row.name,
        Number(row.n),
      ]),
    );
  const bump = (trx: Kysely<Database>, name: string) => sql`UPDATE counters SET n = n + 1 WHERE name = ${name}`.execute(trx);
  /** A promise and the function that settles it. */
  const signal = () => {
    let give = () => {};
    const given = new Promise<void>((resolve) => {
      give = resolve;
    });
    return { given, give };
  };
  /** Adds `work` on a later turn than anything added before, so that it starts a batch of its own. */
  const later = <R>(batched: BatchedWrites, work: (trx: Kysely<Database>) => Promise<R>) =>
    new Promise<R>((resolve, reject) => setImmediate(() => batched.transaction(work).then(resolve, reject)));

  it("asks for two at once from the storage's capabilities, one from SQLite's", () => {
    expect(storage.capabilities.concurrentTransactions).toBe(true);
    expect(BatchedWrites.optionsFor(storage).batchesAtOnce).toBe(2);
    const sqlite = createSqliteStorage({ filename: ":memory:" });
    expect(BatchedWrites.optionsFor(sqlite).batchesAtOnce).toBe(1);
    sqlite.close();
  });

  it("commits a second batch while the first is still being written", async () => {
    const batched = new BatchedWrites(storage, { batchesAtOnce: 2 });
    const open = signal();
    let firstCommitted = false;
    const first = batched
      .transaction(async (trx) => {
        await bump(trx, "x");
        await open.given;
      })
      .then(() => {
        firstCommitted = true;
      });
    await later(batched, (trx) => bump(trx, "y"));
    expect(firstCommitted).toBe(false);
    expect(await counts()).toEqual({ x: 0, y: 1 });
    open.give();
    await first;
    expect(await counts()).toEqual({ x: 1, y: 1 });
  });

  it("writes one batch at a time when asked for one", async () => {
    const batched = new BatchedWrites(storage, { batchesAtOnce: 1 });
    const open = signal();
    const order: string[] = [];
    const first = batched.transaction(async (trx) => {
      await bump(trx, "x");
      await open.given;
      order.push("first");
    });
    const second = later(batched, async (trx) => {
      await bump(trx, "y");
      order.push("second");
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(order).toEqual([]);
    open.give();
    await Promise.all([first, second]);
    expect(order).toEqual(["first", "second"]);
    expect(await counts()).toEqual({ x: 1, y: 1 });
  });

  /**
   * Two batches that lock the same two rows in opposite orders: the first has another item and a crossing work, the
   * second a crossing work alone. PostgreSQL fails the transaction whose wait it checks first (after
   * `deadlock_timeout`), the one that began waiting first: `lateAsker` asks for its second row 200 ms after the other.
   * Where the role may, the late asker's own check is put off past the test (`deadlock_timeout` of a minute for its
   * transaction), so that only the first waiter's check can find the deadlock: on a loaded machine, timing alone once
   * let the other batch be failed instead.
   *
   * The loser may lose more than once: its rerun can update its first row in the moment between its rollback and the
   * winner's wakeup (the row's last updater is gone, so nothing queues the rerun behind the waiter), and the two cross
   * again. So the test counts the loser's runs as two or more, and the winner's as one.
   */
  async function deadlock(lateAsker: "first" | "second") {
    const batched = new BatchedWrites(storage, { batchesAtOnce: 2 });
    const xLocked = signal();
    const yLocked = signal();
    const crossingRuns = { first: 0, second: 0 };
    let otherRuns = 0;
    const crossing =
      (batch: "first" | "second", mine: string, theirs: string, locked: () => void, theirsLocked: Promise<void>) =>
      async (trx: Kysely<Database>) => {
        crossingRuns[batch]++;
        const late = batch === lateAsker;
        if (late && setsDeadlockTimeout) await sql`SET LOCAL deadlock_timeout = '60s'`.execute(trx);
        await bump(trx, mine);
        locked();
        await theirsLocked;
        if (late) await new Promise((resolve) => setTimeout(resolve, 200));
        await bump(trx, theirs);
      };
    const results = await Promise.allSettled([
      batched.transaction(async (trx) => {
        otherRuns++;
        await sql`UPDATE counters SET n = n + 10 WHERE name = 'x'`.execute(trx);
      }),
      batched.transaction(crossing("first", "x", "y", xLocked.give, yLocked.given)),
      later(batched, crossing("second", "y", "x", yLocked.give, xLocked.given)),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    // Each work committed once, though the losing crossing one ran again.
    expect(await counts()).toEqual({ x: 12, y: 2 });
    const winner = lateAsker;
    const loser = lateAsker === "first" ? "second" : "first";
    expect(crossingRuns[winner]).toBe(1);
    expect(crossingRuns[loser]).toBeGreaterThanOrEqual(2);
    return otherRuns;
  }

  it("writes again, one item at a time, a batch that lost a deadlock with the other", async () => {
    // The first batch asked first and lost: both its items ran again, each alone.
    expect(await deadlock("second")).toBe(2);
  });

  it("runs again a lone item that lost a deadlock with the other batch", async () => {
    // The second batch, one item, asked first and lost: the first batch's other item ran once.
    expect(await deadlock("first")).toBe(1);
  });

  it("gives a batch's pieces of work their statements at once, where one after another would never end", async () => {
    const batched = new BatchedWrites(storage, BatchedWrites.optionsFor(storage));
    const yBumped = signal();
    const order: string[] = [];
    // The first piece waits for the second's write: run in turn, the second would never start.
    const waiting = batched.transaction(async (trx) => {
      await yBumped.given;
      await bump(trx, "x");
      order.push("x");
    });
    const bumping = batched.transaction(async (trx) => {
      await bump(trx, "y");
      order.push("y");
      yBumped.give();
    });
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("timed out"), 2_000));
    expect(await Promise.race([Promise.all([waiting, bumping]).then(() => "done"), timeout])).toBe("done");
    expect(order).toEqual(["y", "x"]);
    expect(await counts()).toEqual({ x: 1, y: 1 });
  });

  it("writes a batch whose piece failed again one piece at a time, once all its pieces were answered", async () => {
    const batched = new BatchedWrites(storage, BatchedWrites.optionsFor(storage));
    const runs = { x: 0, failing: 0, y: 0 };
    const results = await Promise.allSettled([
      batched.transaction(async (trx) => {
        runs.x++;
        await bump(trx, "x");
        // Still writing when the failing piece has failed: the batch waits for it before it rolls back.
        await new Promise((resolve) => setTimeout(resolve, 20));
        await bump(trx, "x");
      }),
      batched.transaction(async (trx) => {
        runs.failing++;
        await sql`INSERT INTO counters (name, n) VALUES ('x', 0)`.execute(trx);
      }),
      batched.transaction(async (trx) => {
        runs.y++;
        await bump(trx, "y");
      }),
    ]);
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "23505" });
    // Each piece ran with the batch, then alone; the rerun's writes alone were kept.
    expect(runs).toEqual({ x: 2, failing: 2, y: 2 });
    expect(await counts()).toEqual({ x: 2, y: 1 });
  });

  it("tells a conflict's rollback from other failures by its SQLSTATE class", () => {
    expect(rolledBackInConflict(Object.assign(new Error("deadlock detected"), { code: "40P01" }))).toBe(true);
    expect(rolledBackInConflict(Object.assign(new Error("could not serialize access"), { code: "40001" }))).toBe(true);
    expect(rolledBackInConflict(Object.assign(new Error("duplicate key"), { code: "23505" }))).toBe(false);
    expect(rolledBackInConflict(Object.assign(new Error("constraint failed"), { code: "SQLITE_CONSTRAINT" }))).toBe(false);
    expect(rolledBackInConflict(new Error("no code"))).toBe(false);
    expect(rolledBackInConflict("40P01")).toBe(false);
  });
});
