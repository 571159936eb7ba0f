import { describe, expect, it } from "vitest";
import { MemoryPubSub } from "../../memory/memory-pubsub.js";
import { FakeClock } from "../../memory/system-clock.js";
import type { Clock } from "../../ports/clock.js";
import type { PubSub } from "../../ports/pubsub.js";
import { AnnouncedCache } from "./announced-cache.js";

const CHANNEL = "test:changed";
const TTL_MS = 10_000;

function newCache(pubsub: PubSub = new MemoryPubSub(), clock: Clock = new FakeClock()): AnnouncedCache<string> {
  return new AnnouncedCache<string>(pubsub, clock, { channel: CHANNEL, ttlMs: TTL_MS, capacity: 100 });
}

/** Reads a value through the cache, as from the database. */
async function readThrough(cache: AnnouncedCache<string>, key: string, value: string): Promise<string> {
  return cache.through(key, async () => value);
}

/** Lets the cache's subscription, started by its first read, complete. */
async function listening(cache: AnnouncedCache<string>): Promise<void> {
  await readThrough(cache, "first", "read before listening");
  await new Promise((resolve) => setImmediate(resolve));
}

describe("a cache forgotten on announced changes", () => {
  it("answers with a kept value until the expiry, then reads again", async () => {
    const clock = new FakeClock();
    const cache = newCache(new MemoryPubSub(), clock);
    await listening(cache);
    await readThrough(cache, "key", "value");
    expect(await readThrough(cache, "key", "read again")).toBe("value");
    clock.advance(TTL_MS - 1);
    expect(cache.get("key")).toBe("value");
    clock.advance(1);
    expect(cache.get("key")).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(await readThrough(cache, "key", "read again")).toBe("read again");
  });

  it("keeps its first read when told to listen before it", async () => {
    const cache = newCache();
    await cache.listen();
    await readThrough(cache, "key", "first read");
    expect(await readThrough(cache, "key", "read again")).toBe("first read");
  });

  it("keeps nothing read before it listens for changes, even a read that ends after", async () => {
    const cache = newCache();
    // The first read starts the subscription; the subscription completes while the read is still running.
    await cache.through("key", async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return "value";
    });
    expect(cache.get("key")).toBeUndefined();
    await readThrough(cache, "key", "read while listening");
    expect(cache.get("key")).toBe("read while listening");
  });

  it("does not keep a null (nothing found)", async () => {
    const cache = newCache();
    await listening(cache);
    expect(await cache.through("unknown", async () => null)).toBeNull();
    expect(cache.get("unknown")).toBeUndefined();
    expect(await cache.through("unknown", async () => "found later")).toBe("found later");
  });

  it("forgets everything at once when this process announces a change", async () => {
    const cache = newCache();
    await listening(cache);
    await readThrough(cache, "a", "one");
    await readThrough(cache, "b", "two");
    const announced = cache.changed();
    // Cleared before the announcement goes out, so the next request here reads again.
    expect(cache.get("a")).toBeUndefined();
    expect(cache.get("b")).toBeUndefined();
    await announced;
  });

  it("forgets one key, here and in the other processes, when a change names it", async () => {
    const pubsub = new MemoryPubSub();
    const here = newCache(pubsub);
    const there = newCache(pubsub);
    await listening(here);
    await listening(there);
    for (const cache of [here, there]) {
      await readThrough(cache, "a", "one");
      await readThrough(cache, "b", "two");
    }
    await here.changed("a");
    for (const cache of [here, there]) {
      expect(cache.get("a")).toBeUndefined();
      expect(cache.get("b")).toBe("two");
    }
  });

  it("forgets everything on a message that names no key as a string", async () => {
    const pubsub = new MemoryPubSub();
    const cache = newCache(pubsub);
    await listening(cache);
    await readThrough(cache, "a", "one");
    await pubsub.publish(CHANNEL, { key: 42 });
    expect(cache.get("a")).toBeUndefined();
  });

  it("forgets everything when another process sharing the pubsub announces a change", async () => {
    const pubsub = new MemoryPubSub();
    const clock = new FakeClock();
    const here = newCache(pubsub, clock);
    const there = newCache(pubsub, clock);
    await listening(here);
    await readThrough(here, "key", "value");
    await there.changed();
    expect(here.get("key")).toBeUndefined();
  });

  it("does not keep a read that began before a change and ended after it", async () => {
    const pubsub = new MemoryPubSub();
    const cache = newCache(pubsub);
    await listening(cache);
    const read = await cache.through("key", async () => {
      await newCache(pubsub).changed();
      return "revoked since";
    });
    expect(read).toBe("revoked since");
    expect(cache.get("key")).toBeUndefined();
    await readThrough(cache, "key", "read after");
    expect(cache.get("key")).toBe("read after");
  });

  it("keeps nothing when it cannot listen, and a failed announcement still clears this process", async () => {
    const broken: PubSub = {
      publish: async () => {
        throw new Error("pubsub down");
      },
      subscribe: async () => {
        throw new Error("pubsub down");
      },
      close: async () => {},
    };
    const cache = newCache(broken);
    await listening(cache);
    await readThrough(cache, "key", "value");
    expect(cache.get("key")).toBeUndefined();
    await expect(cache.changed()).resolves.toBeUndefined();
  });

  it("announces on its channel", async () => {
    const pubsub = new MemoryPubSub();
    const heard: unknown[] = [];
    await pubsub.subscribe(CHANNEL, (message) => heard.push(message));
    await newCache(pubsub).changed();
    expect(heard).toHaveLength(1);
  });
});
