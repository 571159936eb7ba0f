import type { KvKey, KvStore, KvStoreListEntry, KvStoreSetOptions } from "@fedify/fedify";
import { BoundedMap } from "../../bounded-map.js";
import type { Clock } from "../../ports/clock.js";
import type { Storage } from "../../ports/storage.js";
import {
  compareAndSwapFederationKv,
  deleteFederationKv,
  listFederationKv,
  purgeExpiredFederationKv,
  readFederationKvEntry,
  writeFederationKv,
} from "./federation-kv.js";
import { FEDIFY_KV_PREFIXES } from "./fedify-kv-prefixes.js";
import { SIGNATURE_SPEC_PREFIX } from "./signature-specs.js";

/** What Fedify's `Temporal.Duration` offers that the store needs. */
interface DurationLike {
  total(unit: "millisecond"): number;
}

/** A key as `federation_kv` stores it, for statements that read an entry beside other rows. */
export function encodeKey(key: KvKey): string {
  return JSON.stringify(key);
}

/** The string every encoded key under `prefix` starts with: the JSON array without its closing bracket. */
function encodePrefix(prefix: KvKey | undefined): string {
  if (!prefix || prefix.length === 0) return "";
  return `${JSON.stringify(prefix).slice(0, -1)},`;
}

/**
 * Keys read on every delivery (the signature spec a server accepted, which
 * Fedify also writes back after every delivery) or every incoming activity
 * (the sender's public key), and seldom changed: this process keeps their
 * values for a while instead of reading them each time.
 */
const MEMORY_PREFIXES: readonly string[] = [encodePrefix(SIGNATURE_SPEC_PREFIX), encodePrefix(FEDIFY_KV_PREFIXES.publicKey)];

/**
 * How long a value kept in memory is used without reading the database: a
 * change made by another process of the server is seen within it. (A stale
 * public key fails the check, and Fedify then fetches the key again; a stale
 * spec costs one refused first try.)
 */
const MEMORY_TTL_MS = 60_000;
/** Values kept in memory at most; the oldest goes first. */
const MEMORY_MAX_ENTRIES = 10_000;

function isKeptInMemory(encoded: string): boolean {
  return MEMORY_PREFIXES.some((prefix) => encoded.startsWith(prefix));
}

interface Remembered {
  /** JSON text; parsed on each read, so no caller shares an object with another. */
  readonly value: string;
  /** When the value expires in the database (ms since the epoch), if ever. */
  readonly expiresAt: number | null;
  /** Until when the value is used without reading the database. */
  readonly freshUntil: number;
}

export interface SqlKvStoreOptions {
  /**
   * Keep the entries under Fedify's public-key and signature-form prefixes in memory for a while (see
   * `MEMORY_PREFIXES`); off, every read goes to the database. @default true
   */
  readonly keepInMemory?: boolean;
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
  readonly #memory = new BoundedMap<string, Remembered>(MEMORY_MAX_ENTRIES);
  readonly #keepInMemory: boolean;

  constructor(storage: Storage, clock: Clock, options: SqlKvStoreOptions = {}) {
    this.#storage = storage;
    this.#clock = clock;
    this.#keepInMemory = options.keepInMemory ?? true;
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

  /** The value kept in memory for an encoded key, while fresh and not expired. */
  #remembered(encoded: string, now: number): Remembered | undefined {
    const entry = this.#memory.get(encoded);
    if (!entry) return undefined;
    if (entry.freshUntil > now && (entry.expiresAt === null || entry.expiresAt > now)) return entry;
    this.#memory.delete(encoded);
    return undefined;
  }

  #remember(encoded: string, value: string, expiresAt: string | null): void {
    if (!this.#keepInMemory || !isKeptInMemory(encoded)) return;
    const now = this.#clock.now().getTime();
    this.#memory.set(encoded, { value, expiresAt: expiresAt === null ? null : Date.parse(expiresAt), freshUntil: now + MEMORY_TTL_MS });
  }

  async get<T = unknown>(key: KvKey): Promise<T | undefined> {
    const encoded = encodeKey(key);
    const remembered = this.#remembered(encoded, this.#clock.now().getTime());
    if (remembered) return JSON.parse(remembered.value) as T;
    const entry = await readFederationKvEntry(this.#storage.db, encoded, this.#now());
    if (entry === undefined) return undefined;
    this.#remember(encoded, entry.value, entry.expiresAt);
    return JSON.parse(entry.value) as T;
  }

  async set(key: KvKey, value: unknown, options?: KvStoreSetOptions): Promise<void> {
    await this.#write(encodeKey(key), JSON.stringify(value), this.#expiry(options));
  }

  /** Sets a value that expires `ttlMs` after now (on the clock port). */
  async setFor(key: KvKey, value: unknown, ttlMs: number): Promise<void> {
    const expiresAt = new Date(this.#clock.now().getTime() + Math.max(0, ttlMs)).toISOString();
    await this.#write(encodeKey(key), JSON.stringify(value), expiresAt);
  }

  async #write(encoded: string, value: string, expiresAt: string | null): Promise<void> {
    const remembered = this.#remembered(encoded, this.#clock.now().getTime());
    // The same value again, as Fedify writes the spec a server accepted after every delivery: already in the database.
    if (remembered && expiresAt === null && remembered.expiresAt === null && remembered.value === value) return;
    this.#memory.delete(encoded);
    await writeFederationKv(this.#storage.db, encoded, value, expiresAt);
    this.#remember(encoded, value, expiresAt);
  }

  async delete(key: KvKey): Promise<void> {
    const encoded = encodeKey(key);
    this.#memory.delete(encoded);
    await deleteFederationKv(this.#storage.db, encoded);
  }

  async cas(key: KvKey, expectedValue: unknown, newValue: unknown, options?: KvStoreSetOptions): Promise<boolean> {
    this.#memory.delete(encodeKey(key));
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
