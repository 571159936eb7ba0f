import { randomBytes } from "node:crypto";
import { MonotonicIdGenerator, SqlQueue, type Storage, systemClock, systemRandom } from "@kith/core";
import { type QueueUnderTest, describeQueueContract } from "@kith/core/testing";
import type { KyselyPlugin } from "kysely";
import { describe, inject, it } from "vitest";
import { createPostgresDatabase, dropPostgresDatabase } from "./admin.js";
import { createPostgresStorage } from "./postgres-storage.js";

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

const serverUrl = inject("postgresUrl") ?? null;

if (serverUrl) {
  let created = 0;
  // Each case gets an empty database of its own, dropped when the case closes its queue.
  describeQueueContract("sql queue on postgres", async () => {
    const name = `kith_queue_${process.pid}_${++created}_${randomBytes(3).toString("hex")}`;
    const base = createPostgresStorage({ connectionString: await createPostgresDatabase(serverUrl, name), max: 5 });
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
      close: async () => {
        await storage.close();
        await dropPostgresDatabase(serverUrl, name);
      },
    };
  });
} else {
  describe.skip("queue contract: sql queue on postgres [skipped: PostgreSQL not installed]", () => {
    it("runs the queue contract against a real server", () => {});
  });
}
