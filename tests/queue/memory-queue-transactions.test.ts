import { MemoryQueue, MonotonicIdGenerator, systemClock, systemRandom } from "@kith/core";
import { eventually, sleep } from "@kith/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { describeIfPostgres } from "../support/real-servers.js";
import { type TestDatabase, postgresDatabase, sqliteMemoryDatabase } from "./engines.js";

/**
 * The in-memory queue keeps its jobs outside the database, so it cannot
 * write a job in the transaction that causes it: it adds the job when that
 * transaction commits. Run before the commit, a handler would not see the
 * change (an upload's content, a status) that it is about.
 */
function suite(open: () => Promise<TestDatabase>): void {
  let database: TestDatabase | undefined;
  let queue: MemoryQueue | undefined;
  afterEach(async () => {
    await queue?.stop();
    await database?.close();
  });

  async function started(seen: string[]): Promise<{ db: TestDatabase; queue: MemoryQueue }> {
    database = await open();
    queue = new MemoryQueue({ clock: systemClock, ids: new MonotonicIdGenerator(systemClock, systemRandom), pollIntervalMs: 5 });
    queue.handle("work", async (payload) => {
      seen.push((payload as { step: string }).step);
    });
    await queue.start();
    return { db: database, queue };
  }

  it("adds a job of a transaction once it commits, and runs it then", async () => {
    const seen: string[] = [];
    const { db, queue } = await started(seen);
    let job = "";
    await db.storage.transaction(async (trx) => {
      job = (await queue.enqueue("work", { step: "committed" }, { db: trx })).id;
      // Long enough for several polls: the job must not run while its transaction is open.
      await sleep(50);
      expect(seen).toEqual([]);
      expect(await queue.get(job)).toBeNull();
    });
    await eventually(() => expect(seen).toEqual(["committed"]));
    expect(await queue.get(job)).toMatchObject({ id: job, queue: "work" });
  });

  it("adds at once a job given a transaction's handle after that transaction ended", async () => {
    const seen: string[] = [];
    const { db, queue } = await started(seen);
    const kept = await db.storage.transaction(async (trx) => trx);
    await queue.enqueue("work", { step: "late" }, { db: kept });
    await eventually(() => expect(seen).toEqual(["late"]));
  });

  it("never adds a job of a transaction that rolls back", async () => {
    const seen: string[] = [];
    const { db, queue } = await started(seen);
    await expect(
      db.storage.transaction(async (trx) => {
        await queue.enqueue("work", { step: "rolled back" }, { db: trx });
        throw new Error("the change fails");
      }),
    ).rejects.toThrow("the change fails");
    await queue.enqueue("work", { step: "outside" });
    await eventually(() => expect(seen).toEqual(["outside"]));
    expect(await queue.counts("work")).toMatchObject({ submitted: 0, active: 0, finished: 1 });
  });
}

describe("the in-memory queue in a SQLite transaction", () => suite(sqliteMemoryDatabase));
describeIfPostgres("the in-memory queue in a PostgreSQL transaction", () => suite(postgresDatabase));
