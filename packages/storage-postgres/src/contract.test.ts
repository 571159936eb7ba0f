import { randomBytes } from "node:crypto";
import { describeStorageContract } from "@kith/core/testing";
import { afterAll, describe, inject, it } from "vitest";
import { createPostgresDatabase, dropPostgresDatabase } from "./admin.js";
import { createPostgresStorage } from "./postgres-storage.js";

// Provided by the repository's global setup (tests/setup/real-servers.ts); declared here too, as this package is type-checked on its own.
declare module "vitest" {
  export interface ProvidedContext {
    postgresUrl: string | null;
    postgresSocketUrl: string | null;
    redisUrl: string | null;
  }
}

const serverUrl = inject("postgresUrl") ?? null;

if (serverUrl) {
  const databases: string[] = [];
  // The contract wants an empty database for each case: one per factory call, dropped at the end.
  describeStorageContract("postgres", async () => {
    const name = `kith_contract_${process.pid}_${databases.length + 1}_${randomBytes(3).toString("hex")}`;
    databases.push(name);
    return createPostgresStorage({ connectionString: await createPostgresDatabase(serverUrl, name) });
  });
  afterAll(async () => {
    for (const name of databases) await dropPostgresDatabase(serverUrl, name);
  });
} else {
  describe.skip("storage contract: postgres [skipped: PostgreSQL not installed]", () => {
    it("runs the storage contract against a real server", () => {});
  });
}
