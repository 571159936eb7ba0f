import { mkdirSync } from "node:fs";
import { join } from "node:path";
import {
  DEFAULT_LIMITS,
  type Kith,
  LocalDirectoryBlobStore,
  type QueueFactory,
  SqlQueue,
  type Storage,
  createKith,
  getLogger,
} from "@kith/core";
import { type BlobStore, MemoryPubSub, type PubSub } from "@kith/core";
import { HttpSmsSender, type Mailer, type SmsSender, SmtpMailer } from "@kith/core";
import { createSqliteStorage } from "@kith/storage-sqlite";
import type { ServerConfig } from "./config.js";
import { Optimisations } from "./optimisations.js";
import { KITH_VERSION } from "./version.js";

// The adapters for PostgreSQL, Redis and S3 (with their drivers: pg, BullMQ, ioredis, undici) are loaded only when the
// configuration selects them: a server on SQLite and local disk starts without reading or holding them.

/** Opens the database the configuration selects: PostgreSQL when a URL is given, else SQLite in the data directory. */
export async function openStorage(config: ServerConfig): Promise<Storage> {
  if (config.database.kind === "postgres") {
    const { createPostgresStorage } = await import("@kith/storage-postgres");
    return createPostgresStorage({ connectionString: config.database.url, ...(config.optimisations ?? new Optimisations()).postgres() });
  }
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
  if (redisUrl)
    return async ({ storage, ids, clock }) => {
      const { createRedisQueue } = await import("@kith/queue-redis");
      return createRedisQueue({ url: redisUrl, storage, ids, clock });
    };
  return ({ storage, ids, clock }) => new SqlQueue({ storage, ids, clock });
}

/**
 * The blob store for KITH_BLOB=s3, as an override of createKith's `blob`
 * option; empty for local storage, which keeps the local directory.
 */
export async function s3BlobOverride(config: ServerConfig): Promise<{ blob?: BlobStore }> {
  if (config.blob.kind !== "s3") return {};
  const { S3BlobStore } = await import("@kith/blob-s3");
  const { endpoint, region, bucket, accessKeyId, secretAccessKey, forcePathStyle } = config.blob;
  return { blob: new S3BlobStore({ endpoint, region, bucket, accessKeyId, secretAccessKey, forcePathStyle }) };
}

/**
 * Mail over SMTP and SMS through an HTTP provider when configured, as
 * overrides of createKith's `mail` and `sms`; empty keeps the outboxes.
 */
export function messagingOverride(config: ServerConfig): { mail?: Mailer; sms?: SmsSender } {
  return {
    ...(config.smtp && { mail: new SmtpMailer({ url: config.smtp.url, from: config.smtp.from }) }),
    ...(config.sms && { sms: new HttpSmsSender({ url: config.sms.url, token: config.sms.token }) }),
  };
}

/**
 * The pubsub streaming fans out through: Redis pub/sub when KITH_REDIS_URL is
 * set, so every server process streams every event; else in-process.
 */
export async function pubsubFor(config: ServerConfig): Promise<PubSub> {
  if (!config.redisUrl) return new MemoryPubSub();
  const { RedisPubSub } = await import("@kith/queue-redis");
  return new RedisPubSub({ url: config.redisUrl });
}

/** Builds Kith from the server's configuration, applying migrations. Its workers run only once `start()` is called. */
export async function assembleKith(config: ServerConfig, options: { migrate?: boolean } = {}): Promise<Kith> {
  const storage = await openStorage(config);
  const pubsub = await pubsubFor(config);
  try {
    const kith = await createKith({
      storage,
      queue: queueFor(config),
      // Media stays on local disk under the data directory, whatever the database.
      blob: new LocalDirectoryBlobStore({ directory: join(config.dataDir, "media") }),
      // KITH_BLOB=s3 puts media in an S3-compatible object store instead.
      ...(await s3BlobOverride(config)),
      // KITH_SMTP_URL and KITH_SMS_URL replace the outboxes.
      ...messagingOverride(config),
      pubsub,
      config: {
        origin: config.origin,
        version: KITH_VERSION,
        allowPrivateAddress: config.allowPrivateAddress,
        authorizedFetch: config.authorizedFetch,
        tombstoneRetentionDays: config.tombstoneRetentionDays,
        deliveryRetries: config.deliveryRetries,
        unreachableAfterDays: config.unreachableAfterDays,
        optimisations: (config.optimisations ?? new Optimisations()).core(),
        secretKeys: [...(config.secretKeys ?? [])],
      },
      limits: { ...DEFAULT_LIMITS, maxJsonBodyBytes: config.maxBodyBytes },
      migrate: options.migrate ?? true,
    });
    getLogger(["server"]).debug("Jobs are kept in {queue}", { queue: config.redisUrl ? "Redis" : `the ${config.database.kind} database` });
    return kith;
  } catch (error) {
    await pubsub.close();
    await storage.close();
    throw error;
  }
}
