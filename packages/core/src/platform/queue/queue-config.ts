import type { Kysely } from "kysely";
import { KithError } from "../../domain/errors.js";
import type { HandlerOptions, QueueConfig, QueueConfigChanges } from "../../ports/queue.js";
import { type Database, type JobQueueRow, toBool } from "../../ports/storage-schema.js";

/** What a queue gets when neither its handler nor an administrator said otherwise (see `HandlerOptions`). */
export const DEFAULT_QUEUE_CONFIG = { description: "", maxRetries: 4, concurrency: 1, enabled: true } as const;

export function toQueueConfig(row: JobQueueRow): QueueConfig {
  return {
    name: row.name,
    description: row.description,
    maxRetries: Number(row.max_retries),
    concurrency: Number(row.concurrency),
    enabled: toBool(row.enabled),
  };
}

/** A queue's configuration from its handler's options, before any row exists. */
export function configFromHandler(name: string, options: HandlerOptions): QueueConfig {
  return {
    name,
    description: options.description ?? DEFAULT_QUEUE_CONFIG.description,
    maxRetries: options.maxRetries ?? DEFAULT_QUEUE_CONFIG.maxRetries,
    concurrency: options.concurrency ?? DEFAULT_QUEUE_CONFIG.concurrency,
    enabled: DEFAULT_QUEUE_CONFIG.enabled,
  };
}

/**
 * Writes a queue's row from its handler's defaults unless it exists: what an
 * administrator changed survives restarts and deployments.
 */
export async function ensureQueueRow(db: Kysely<Database>, config: QueueConfig, now: Date): Promise<void> {
  await db
    .insertInto("job_queues")
    .values({
      name: config.name,
      description: config.description,
      max_retries: config.maxRetries,
      concurrency: config.concurrency,
      enabled: config.enabled,
      updated_at: now.toISOString(),
    })
    .onConflict((oc) => oc.column("name").doNothing())
    .execute();
}

export async function readQueueConfigs(db: Kysely<Database>): Promise<QueueConfig[]> {
  const rows = await db.selectFrom("job_queues").selectAll().orderBy("name").execute();
  return rows.map(toQueueConfig);
}

function checkChanges(changes: QueueConfigChanges): void {
  const details: { field: string; message: string }[] = [];
  const { concurrency, maxRetries, description, enabled } = changes;
  if (concurrency !== undefined && !(Number.isSafeInteger(concurrency) && concurrency >= 1 && concurrency <= 1_000)) {
    details.push({ field: "concurrency", message: "must be a whole number from 1 to 1000" });
  }
  if (maxRetries !== undefined && !(Number.isSafeInteger(maxRetries) && maxRetries >= 0 && maxRetries <= 1_000)) {
    details.push({ field: "maxRetries", message: "must be a whole number from 0 to 1000" });
  }
  if (description !== undefined && typeof description !== "string") details.push({ field: "description", message: "must be text" });
  if (enabled !== undefined && typeof enabled !== "boolean") details.push({ field: "enabled", message: "must be true or false" });
  if (details.length > 0) throw new KithError("request.validation_failed", { details });
}

/** Applies an administrator's changes to a queue's row; `queue.not_found` when there is none. */
export async function updateQueueConfig(db: Kysely<Database>, name: string, changes: QueueConfigChanges, now: Date): Promise<QueueConfig> {
  checkChanges(changes);
  const row = await db
    .updateTable("job_queues")
    .set({
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      ...(changes.maxRetries !== undefined ? { max_retries: changes.maxRetries } : {}),
      ...(changes.concurrency !== undefined ? { concurrency: changes.concurrency } : {}),
      ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
      updated_at: now.toISOString(),
    })
    .where("name", "=", name)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new KithError("queue.not_found");
  return toQueueConfig(row);
}

/**
 * This process's view of every queue's configuration, re-read from the
 * database now and then so that an administrator's change made through
 * another process applies without a restart. A change made through this
 * process applies at once.
 */
export class QueueConfigCache {
  readonly #configs = new Map<string, QueueConfig>();
  #readAt = Number.NEGATIVE_INFINITY;
  /** Counts local changes, so a read that was under way during one does not bring back the old value. */
  #changes = 0;

  constructor(
    private readonly db: Kysely<Database>,
    /** How old the view may grow before `refreshIfStale` reads it again. */
    private readonly maxAgeMs: number,
  ) {}

  get(name: string): QueueConfig | undefined {
    return this.#configs.get(name);
  }

  set(config: QueueConfig): void {
    this.#changes += 1;
    this.#configs.set(config.name, config);
  }

  async refresh(nowMs: number): Promise<void> {
    const changesBefore = this.#changes;
    const configs = await readQueueConfigs(this.db);
    // A local change landed while reading: this read may predate it. The next refresh reads again.
    if (this.#changes !== changesBefore) return;
    this.#configs.clear();
    for (const config of configs) this.#configs.set(config.name, config);
    this.#readAt = nowMs;
  }

  async refreshIfStale(nowMs: number): Promise<void> {
    if (nowMs - this.#readAt >= this.maxAgeMs) await this.refresh(nowMs);
  }
}
