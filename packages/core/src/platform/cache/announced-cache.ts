import { BoundedMap } from "../../bounded-map.js";
import { getLogger } from "../../logging.js";
import type { Clock } from "../../ports/clock.js";
import type { PubSub } from "../../ports/pubsub.js";

export interface AnnouncedCacheOptions {
  /** The pubsub channel on which any process announces a change of what is kept. */
  readonly channel: string;
  /**
   * How long a value read from the database answers. Announced changes take
   * effect at once; this bounds only what nothing announces: a lost pubsub
   * message, a change made by a process on a pubsub that does not reach this
   * one (the CLI beside a server on the in-memory pubsub), a row written by hand.
   */
  readonly ttlMs: number;
  /** Entries kept; past it the least recently used are read again. */
  readonly capacity: number;
}

interface Entry<T> {
  readonly value: T;
  readonly until: number;
}

/** What a change announces: one key forgotten, or (no key) everything. */
interface Announcement {
  readonly key?: string;
}

const logger = getLogger(["cache"]);

/** The generation of a read begun before the process listened: never the current one (those count up from 0). */
const NOT_LISTENING = -1;

/**
 * Rows kept in the process between requests, that every process forgets as
 * soon as any of them announces a change on the pubsub port. For reads made
 * by nearly every request (a session, a reader's filters), where on
 * PostgreSQL each read is a round trip.
 *
 * The code that changes what is kept calls `changed()` once its transaction
 * has committed: this process forgets before the call returns, the others
 * when the announcement reaches them. A read that began before a change and
 * ends after it is not kept (`generation`), nor one that began before this
 * process listened on the channel, or a change announced in between would be
 * missed.
 */
export class AnnouncedCache<T> {
  readonly #entries: BoundedMap<string, Entry<T>>;
  #generation = 0;
  #listening = false;
  #subscribing: Promise<void> | null = null;

  constructor(
    private readonly pubsub: PubSub,
    private readonly clock: Clock,
    private readonly options: AnnouncedCacheOptions,
  ) {
    this.#entries = new BoundedMap(options.capacity);
  }

  /** The value kept for a key, if it was read within the expiry. */
  get(key: string): T | undefined {
    const entry = this.#entries.use(key);
    if (entry === undefined) return undefined;
    if (entry.until > this.clock.now().getTime()) return entry.value;
    this.#entries.delete(key);
    return undefined;
  }

  /**
   * Reads through the cache: the kept value, or `read`'s, kept for next time.
   * A null (nothing found) is not kept: an unknown key costs a read each time
   * and cannot fill the cache.
   */
  async through<R extends T | null>(key: string, read: () => Promise<R>): Promise<T | R> {
    const kept = this.get(key);
    if (kept !== undefined) return kept;
    const generation = this.#begin();
    const value = await read();
    if (value !== null) this.#keep(key, value, generation);
    return value;
  }

  /**
   * Forgets `key` (every key when none is given) here, then tells the other
   * processes to. Never throws: the change itself is already made, and the
   * other processes fall back on the expiry.
   */
  async changed(key?: string): Promise<void> {
    const announcement: Announcement = key === undefined ? {} : { key };
    this.#forget(announcement);
    try {
      await this.pubsub.publish(this.options.channel, announcement);
    } catch (error) {
      logger.warn("Could not announce a change on {channel}: {error}", { channel: this.options.channel, error: messageOf(error) });
    }
  }

  /**
   * Listens for announcements now, so that the first read is kept: for a
   * value every request of a kind reads, where otherwise that first read
   * would not count. Never throws (without listening nothing is kept).
   */
  listen(): Promise<void> {
    this.#subscribing ??= this.#subscribe();
    return this.#subscribing;
  }

  get size(): number {
    return this.#entries.size;
  }

  /**
   * Called before a read from the database. A read that begins before this
   * process listens is not kept even if it ends after: a change announced in
   * between went unheard.
   */
  #begin(): number {
    this.#subscribing ??= this.#subscribe();
    return this.#listening ? this.#generation : NOT_LISTENING;
  }

  /** Keeps a value read since `#begin`, unless a change was announced meanwhile. */
  #keep(key: string, value: T, generation: number): void {
    if (generation !== this.#generation) return;
    this.#entries.set(key, { value, until: this.clock.now().getTime() + this.options.ttlMs });
  }

  #forget(announcement: Announcement): void {
    this.#generation++;
    if (announcement.key === undefined) this.#entries.clear();
    else this.#entries.delete(announcement.key);
  }

  async #subscribe(): Promise<void> {
    try {
      await this.pubsub.subscribe(this.options.channel, (message) => this.#forget(announcementOf(message)));
      this.#listening = true;
    } catch (error) {
      // Not listening: every read goes to the database, as without a cache.
      logger.warn("Nothing is kept for {channel}: {error}", { channel: this.options.channel, error: messageOf(error) });
    }
  }
}

/** A message that does not name a key as a string forgets everything: the safe reading of anything unexpected. */
function announcementOf(message: unknown): Announcement {
  const key = typeof message === "object" && message !== null ? (message as { key?: unknown }).key : undefined;
  return typeof key === "string" ? { key } : {};
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
