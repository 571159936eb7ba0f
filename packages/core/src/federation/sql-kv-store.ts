import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import type { Clock } from "../ports/clock.js";
import type { Storage } from "../ports/storage.js";
import {
  compareAndSwapFederationKv,
  deleteFederationKv,
  listFederationKv,
  purgeExpiredFederationKv,
  readFederationKv,
  writeFederationKv,
} from "../storage/repositories/federation-kv.js";

/** What Fedify's `Temporal.Duration` offers that the store needs. */
interface DurationLike {
  total(unit: "millisecond"): number;
}

function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

/** The string every encoded key under `prefix` starts with: the JSON array without its closing bracket. */
function encodePrefix(prefix: KvKey | undefined): string {
  if (!prefix || prefix.length === 0) return "";
  return `${JSON.stringify(prefix).slice(0, -1)},`;
}

/**
 * Fedify's `KvStore` kept in Kith's own database (table `federation_kv`), so
 * the remote document cache, inbox idempotence and the signature spec
 * remembered per server survive restarts and are shared by every process of
 * one server. Expired entries are invisible at once and removed by `purge`.
 */
export class SqlKvStore implements KvStore {
  readonly #storage: Storage;
  readonly #clock: Clock;

  constructor(storage: Storage, clock: Clock) {
    this.#storage = storage;
    this.#clock = clock;
  }

  #now(): string {
    return this.#clock.now().toISOString();
  }

  #expiry(options: KvStoreSetOptions | undefined): string | null {
    const ttl = options?.ttl as DurationLike | undefined;
    if (!ttl) return null;
    const ms = ttl.total("millisecond");
    return Number.isFinite(ms) ? new Date(this.#clock.now().getTime() + Math.max(0, ms)).toISOString() : null;
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const value = await readFederationKv(this.#storage.db, encodeKey(key), this.#now());
    return value === undefined ? undefined : (JSON.parse(value) as T);
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await writeFederationKv(this.#storage.db, encodeKey(key), JSON.stringify(value), this.#expiry(options));
  }

  /** Sets a value that expires `ttlMs` after now (on the clock port). */
  async setFor(key: KvKey, value: unknown, ttlMs: number): Promise<void> {
    const expiresAt = new Date(this.#clock.now().getTime() + Math.max(0, ttlMs)).toISOString();
    await writeFederationKv(this.#storage.db, encodeKey(key), JSON.stringify(value), expiresAt);
  }

  async delete(key: KvKey): Promise<void> {
    await deleteFederationKv(this.#storage.db, encodeKey(key));
  }

  async cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    const expected = expectedValue === undefined ? undefined : JSON.stringify(expectedValue);
    return compareAndSwapFederationKv(
      this.#storage.db,
      encodeKey(key),
      expected,
      JSON.stringify(newValue),
      this.#expiry(options),
      this.#now(),
    );
  }

  async *list(prefix?: KvKey): AsyncIterable<KvStoreListEntry> {
    const entries = await listFederationKv(this.#storage.db, encodePrefix(prefix), this.#now());
    const exact = prefix && prefix.length > 0 ? await this.get(prefix) : undefined;
    if (prefix && prefix.length > 0 && exact !== undefined) yield { key: prefix, value: exact };
    for (const entry of entries) yield { key: JSON.parse(entry.key) as KvKey, value: JSON.parse(entry.value) };
  }

  /** Deletes expired entries; returns how many. */
  purge(): Promise<number> {
    return purgeExpiredFederationKv(this.#storage.db, this.#now());
  }
}
