import { type PubSub, type PubSubListener, getLogger } from "@kith/core";
import { Redis } from "ioredis";

export interface RedisPubSubOptions {
  /** `redis://` or `rediss://` URL of the server. */
  readonly url: string;
  /**
   * Namespace of every channel. Redis pub/sub channels are shared by the whole
   * server (database numbers do not separate them), so Kith instances sharing
   * one Redis need different prefixes. @default "kith"
   */
  readonly prefix?: string;
}

const logger = getLogger(["queue-redis", "pubsub"]);

/**
 * The pubsub port on Redis pub/sub, so every server process sees what any of
 * them publishes (streaming fan-out across processes).
 *
 * Two connections: one in subscriber mode, which Redis lets run no other
 * commands, and one that publishes. Each channel is subscribed once at Redis
 * however many listeners it has here, and unsubscribed when its last listener
 * leaves. Redis delivers at most once and keeps nothing: a message published
 * while a process is disconnected is lost to it (ioredis subscribes again on
 * reconnection), which streaming accepts: clients reload timelines on reconnect.
 */
export class RedisPubSub implements PubSub {
  readonly #prefix: string;
  readonly #subscriber: Redis;
  readonly #publisher: Redis;
  /** Listeners by channel as the caller names it; each registration is its own entry, so one unsubscribe removes one. */
  readonly #listeners = new Map<string, { readonly listener: PubSubListener }[]>();
  /** Channels subscribed at Redis (full names). */
  readonly #subscribed = new Set<string>();
  /** The last SUBSCRIBE/UNSUBSCRIBE of each channel, so changes to one channel apply in order. */
  readonly #pending = new Map<string, Promise<void>>();
  #closed = false;

  constructor(options: RedisPubSubOptions) {
    this.#prefix = `${options.prefix ?? "kith"}:pubsub:`;
    // Lazy: a process that never streams (a CLI command) never connects.
    this.#subscriber = new Redis(options.url, { connectionName: `${this.#prefix}subscriber`, lazyConnect: true });
    this.#publisher = new Redis(options.url, { connectionName: `${this.#prefix}publisher`, lazyConnect: true });
    for (const connection of [this.#subscriber, this.#publisher]) {
      // Without a listener ioredis reports connection errors as unhandled; it reconnects by itself.
      connection.on("error", (error: unknown) => logger.debug("Redis connection error: {error}", { error }));
    }
    this.#subscriber.on("message", (channel: string, text: string) => this.#deliver(channel, text));
  }

  async publish(channel: string, message: unknown): Promise<void> {
    if (this.#closed) throw new Error("RedisPubSub is closed");
    const text = JSON.stringify(message);
    if (text === undefined) throw new TypeError("pubsub messages must be JSON values");
    await this.#publisher.publish(this.#prefix + channel, text);
  }

  async subscribe(channel: string, listener: PubSubListener): Promise<() => Promise<void>> {
    if (this.#closed) throw new Error("RedisPubSub is closed");
    const entry = { listener };
    const entries = this.#listeners.get(channel) ?? [];
    entries.push(entry);
    this.#listeners.set(channel, entries);
    try {
      await this.#sync(channel);
    } catch (error) {
      this.#remove(channel, entry);
      throw error;
    }
    let active = true;
    return async () => {
      if (!active) return;
      active = false;
      this.#remove(channel, entry);
      if (!this.#closed) await this.#sync(channel);
    };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#listeners.clear();
    await Promise.allSettled(this.#pending.values());
    for (const connection of [this.#subscriber, this.#publisher]) {
      // QUIT on a connection never opened would open it first.
      if (connection.status === "wait") {
        connection.disconnect();
        continue;
      }
      try {
        await connection.quit();
      } catch {
        connection.disconnect();
      }
    }
  }

  #remove(channel: string, entry: { readonly listener: PubSubListener }): void {
    const entries = this.#listeners.get(channel);
    if (!entries) return;
    const index = entries.indexOf(entry);
    if (index >= 0) entries.splice(index, 1);
    if (entries.length === 0) this.#listeners.delete(channel);
  }

  /** Brings the Redis subscription of `channel` in line with whether it has listeners, after any change already under way. */
  #sync(channel: string): Promise<void> {
    const full = this.#prefix + channel;
    const previous = this.#pending.get(full) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(async () => {
        const wanted = this.#listeners.has(channel) && !this.#closed;
        if (wanted && !this.#subscribed.has(full)) {
          await this.#subscriber.subscribe(full);
          this.#subscribed.add(full);
        } else if (!wanted && this.#subscribed.has(full)) {
          this.#subscribed.delete(full);
          await this.#subscriber.unsubscribe(full);
        }
      });
    this.#pending.set(full, next);
    const forget = (): void => {
      if (this.#pending.get(full) === next) this.#pending.delete(full);
    };
    next.then(forget, forget);
    return next;
  }

  #deliver(fullChannel: string, text: string): void {
    if (this.#closed || !fullChannel.startsWith(this.#prefix)) return;
    const entries = this.#listeners.get(fullChannel.slice(this.#prefix.length));
    if (!entries) return;
    for (const { listener } of [...entries]) {
      try {
        // Parsed per listener, so listeners never share objects (as with the in-process pubsub).
        listener(JSON.parse(text));
      } catch (error) {
        // A failing listener must not keep the message from the others, nor crash the connection's event loop.
        logger.error("A pubsub listener on {channel} failed: {error}", { channel: fullChannel, error });
      }
    }
  }
}
