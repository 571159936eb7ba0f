import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_LIMITS, type Kith, LocalDirectoryBlobStore, type QueueFactory, SqlQueue, type Storage, createKith, getLogger } from "@kith/core";
import { createRedisQueue } from "@kith/queue-redis";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import type { ServerConfig } from "./config.js";

/** Opens the database the configuration selects: PostgreSQL when a URL is given, else SQLite in the data directory. */
export function openStorage(config: ServerConfig): Storage {
  if (config.database.kind === "postgres") return createPostgresStorage({ connectionString: config.database.url });
  mkdirSync(config.dataDir, { recursive: true });
  return createSqliteStorage({ filename: config.database.filename });
}

/**
 * The queue the configuration selects: Redis (BullMQ) when KITH_REDIS_URL is
 * set, for many worker processes; else the durable SQL queue, whose jobs are
 * rows of the server's own database (SQLite or PostgreSQL).
 */
export function queueFor(config: ServerConfig): QueueFactory {
  const { redisUrl } = config;
  if (redisUrl) return ({ storage, ids, clock }) => createRedisQueue({ url: redisUrl, storage, ids, clock });
  return ({ storage, ids, clock }) => new SqlQueue({ storage, ids, clock });
}

/** Builds Kith from the server's configuration, applying migrations. Its workers run only once `start()` is called. */
export async function assembleKith(config: ServerConfig, options: { migrate?: boolean } = {}): Promise<Kith> {
  const storage = openStorage(config);
  try {
    const kith = await createKith({
      storage,
      queue: queueFor(config),
      // Media stays on local disk under the data directory, whatever the database.
      blob: new LocalDirectoryBlobStore({ directory: join(config.dataDir, "media") }),
      config: { origin: config.origin, allowPrivateAddress: config.allowPrivateAddress },
      limits: { ...DEFAULT_LIMITS, maxJsonBodyBytes: config.maxBodyBytes },
      migrate: options.migrate ?? true,
    });
    getLogger(["server"]).debug("Jobs are kept in {queue}", { queue: config.redisUrl ? "Redis" : `the ${config.database.kind} database` });
    return kith;
  } catch (error) {
    await storage.close();
    throw error;
  }
}
