import { createTestKith, type TestKith, type TestKithOptions } from "@kith/core/testing";
import { createSqliteStorage } from "@kith/storage-sqlite";

/** A test Kith on a fresh in-memory SQLite database. */
export function sqliteTestKith(options: Partial<TestKithOptions> = {}): Promise<TestKith> {
  return createTestKith({ storage: () => createSqliteStorage({ filename: ":memory:" }), ...options });
}
