import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MonotonicIdGenerator, SqlQueue, systemClock, systemRandom, coreMigrations } from "@kith/core";
import { type QueueUnderTest, describeQueueContract, withStorageFaults } from "@kith/core/testing";
import { afterAll } from "vitest";
import { createSqliteStorage } from "./sqlite-storage.js";

async function queueOn(filename: string): Promise<QueueUnderTest> {
  const base = createSqliteStorage({ filename });
  await base.migrate(coreMigrations);
  const { storage, faults } = withStorageFaults(base);
  const queue = new SqlQueue({
    storage,
    ids: new MonotonicIdGenerator(systemClock, systemRandom),
    pollIntervalMs: 50,
    heartbeatIntervalMs: 200,
  });
  return {
    queue,
    faults,
    transaction: (work) => storage.transaction((trx) => work(trx)),
    close: () => storage.close(),
  };
}

describeQueueContract("sql queue on sqlite :memory:", () => queueOn(":memory:"));

const dir = mkdtempSync(join(tmpdir(), "kith-sql-queue-"));
let counter = 0;
describeQueueContract("sql queue on sqlite file (WAL)", () => queueOn(join(dir, `queue-${++counter}.sqlite`)));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
