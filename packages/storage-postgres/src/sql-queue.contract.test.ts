import { randomBytes } from "node:crypto";
import { MonotonicIdGenerator, SqlQueue, systemClock, systemRandom, coreMigrations } from "@kith/core";
import { describeQueueContract, withStorageFaults } from "@kith/core/testing";
import { describe, inject, it } from "vitest";
import { createPostgresDatabase, dropPostgresDatabase } from "./admin.js";
import { createPostgresStorage } from "./postgres-storage.js";

const serverUrl = inject("postgresUrl") ?? null;

if (serverUrl) {
  let created = 0;
  // Each case gets an empty database of its own, dropped when the case closes its queue.
  describeQueueContract("sql queue on postgres", async () => {
    const name = `kith_queue_${process.pid}_${++created}_${randomBytes(3).toString("hex")}`;
    const base = createPostgresStorage({ connectionString: await createPostgresDatabase(serverUrl, name), max: 5 });
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
