import { mkdirSync } from "node:fs";
import { DEFAULT_LIMITS, type Kith, type Storage, createKith, getLogger } from "@kith/core";
import { createPostgresStorage } from "@kith/storage-postgres";
import { createSqliteStorage } from "@kith/storage-sqlite";
import type { ServerConfig } from "./config.js";

/** Opens the database the configuration selects: PostgreSQL when a URL is given, else SQLite in the data directory. */
export function openStorage(config: ServerConfig): Storage {
  if (config.database.kind === "postgres") return createPostgresStorage({ connectionString: config.database.url });
  mkdirSync(config.dataDir, { recursive: true });
  return createSqliteStorage({ filename: config.database.filename });
}

/** Builds Kith from the server's configuration, applying migrations. */
export async function assembleKith(config: ServerConfig, options: { migrate?: boolean } = {}): Promise<Kith> {
  const logger = getLogger(["server"]);
  if (config.redisUrl) {
    logger.warn("KITH_REDIS_URL is set, but this version has no Redis adapter yet; jobs and pub/sub stay in process");
  }
  const storage = openStorage(config);
  try {
    return await createKith({
      storage,
      config: { origin: config.origin, allowPrivateAddress: config.allowPrivateAddress },
      limits: { ...DEFAULT_LIMITS, maxJsonBodyBytes: config.maxBodyBytes },
      migrate: options.migrate ?? true,
    });
  } catch (error) {
    await storage.close();
    throw error;
  }
}
