import type { TestKith, TestUser } from "@kith/core/testing";
import { createTestKith } from "@kith/core/testing";
import { type NodeServer, startNodeServer } from "@kith/http-adapter-node";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import { type mastodon, createRestAPIClient } from "masto";
import { describe } from "vitest";
import { type FreshPostgresDatabase, freshPostgresDatabase, postgresUrl } from "./real-servers.js";

export type CompatEngine = "sqlite" | "postgres";

/** A Kith served over real HTTP, for real clients (masto.js) to drive. */
export interface CompatServer {
  readonly kith: TestKith;
  readonly server: NodeServer;
  readonly url: string;
  /** A masto.js REST client signed in as `user` (or anonymous). */
  client(user?: TestUser): mastodon.rest.Client;
  close(): Promise<void>;
}

export async function startCompatServer(engine: CompatEngine): Promise<CompatServer> {
  let database: FreshPostgresDatabase | null = null;
  if (engine === "postgres") database = await freshPostgresDatabase();
  const url = database?.url;
  const kith = await createTestKith({
    storage: () => (url ? createPostgresStorage({ connectionString: url }) : createSqliteStorage({ filename: ":memory:" })),
  });
  // Clients here read the effects of a request right after it: the reactions that follow an answer (a post's fan-out) are waited for.
  const server = await startNodeServer({
    handler: async (request, info) => {
      const response = await kith.fetch(request, info);
      await kith.services.events.settled();
      return response;
    },
  });
  return {
    kith,
    server,
    url: server.url,
    client: (user) => createRestAPIClient({ url: server.url, accessToken: user?.token }),
    close: async () => {
      await server.close();
      await kith.close();
      await database?.drop();
    },
  };
}

/**
 * Declares a suite once per engine: on SQLite always, on PostgreSQL when the
 * test server is there (skipped visibly otherwise).
 */
export function describeOnEngines(name: string, body: (engine: CompatEngine) => void): void {
  describe(`${name} (SQLite)`, () => body("sqlite"));
  if (postgresUrl() !== null) describe(`${name} (PostgreSQL)`, () => body("postgres"));
  else describe.skip(`${name} (PostgreSQL) [skipped: PostgreSQL not installed]`, () => body("postgres"));
}
