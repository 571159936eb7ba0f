import { type TestKith, createTestKith } from "@kith/core/testing";
import { createPostgresStorage } from "@kith/storage-postgres";
import { describe } from "vitest";
import { describeIfPostgres, freshPostgresDatabase } from "../support/real-servers.js";
import { sqliteTestKith } from "../support/test-kith.js";

/** Makes the Kith a suite runs against; its `close` also drops a PostgreSQL database. */
export type KithFactory = () => Promise<TestKith>;

/**
 * Declares a feeds suite once per engine: the timeline, list, conversation
 * and notification queries use sub-selects, upserts and aggregates that
 * each engine must answer alike.
 */
export function describeFeedsOnEngines(name: string, body: (makeKith: KithFactory) => void): void {
  describe(`${name} (SQLite)`, () => body(() => sqliteTestKith()));
  describeIfPostgres(`${name} (PostgreSQL)`, () =>
    body(async () => {
      const database = await freshPostgresDatabase();
      const kith = await createTestKith({ storage: () => createPostgresStorage({ connectionString: database.url, max: 4 }) });
      return {
        ...kith,
        close: async () => {
          await kith.close();
          await database.drop();
        },
      };
    }),
  );
}
