import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MonotonicIdGenerator, SqlQueue, type Storage, systemClock, systemRandom } from "@kith/core";
import { type QueueUnderTest, describeQueueContract } from "@kith/core/testing";
import type { KyselyPlugin } from "kysely";
import { afterAll } from "vitest";
import { createSqliteStorage } from "./sqlite-storage.js";

/**
 * The storage as the queue sees it, with a switch that makes every query
 * fail (as when the database is unreachable), for the contract's recovery case.
 */
function withFaults(storage: Storage): { storage: Storage; faults: NonNullable<QueueUnderTest["faults"]> } {
  let broken = false;
  const plugin: KyselyPlugin = {
    transformQuery(args) {
      if (broken) throw new Error("The database is unavailable (an injected fault)");
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  const db = storage.db.withPlugin(plugin);
  const faulty: Storage = {
    db,
    capabilities: storage.capabilities,
    transaction: (work) => db.transaction().execute(work),
    migrate: () => storage.migrate(),
    consumeOnce: (input) => storage.consumeOnce(input),
    incrementCounter: (key, windowSeconds, now) => storage.incrementCounter(key, windowSeconds, now),
    describeSchema: () => storage.describeSchema(),
    info: () => storage.info(),
    ping: () => storage.ping(),
    close: () => storage.close(),
  };
  return {
    storage: faulty,
    faults: {
      break: () => {
        broken = true;
      },
      heal: () => {
        broken = false;
      },
    },
  };
}

async function queueOn(filename: string): Promise<QueueUnderTest> {
  const base = createSqliteStorage({ filename });
  await base.migrate();
  const { storage, faults } = withFaults(base);
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
