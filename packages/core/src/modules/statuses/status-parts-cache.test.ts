import { describe, expect, it } from "vitest";
import { type StatusParts, StatusPartsCache } from "./status-parts-cache.js";

const parts = (name: string): StatusParts => ({
  mentions: [],
  tags: [{ name, url: `https://kith.test/tags/${name}`, history: [] }],
  application: null,
  hasMedia: false,
  card: null,
  hasPoll: false,
  emojis: [],
  reactions: [],
});

describe("StatusPartsCache", () => {
  it("answers only for the version it holds", () => {
    const cache = new StatusPartsCache();
    cache.set("st_1", 1, parts("a"));
    expect(cache.get("st_1", 1)?.tags[0]?.name).toBe("a");
    expect(cache.get("st_1", 2)).toBeUndefined();
    // A stale version is dropped, not kept for later.
    expect(cache.get("st_1", 1)).toBeUndefined();
  });

  it("forgets on demand and evicts the least recently used beyond its capacity", () => {
    const cache = new StatusPartsCache(2);
    cache.set("st_1", 0, parts("a"));
    cache.set("st_2", 0, parts("b"));
    expect(cache.get("st_1", 0)).toBeDefined();
    cache.set("st_3", 0, parts("c"));
    expect(cache.get("st_2", 0)).toBeUndefined();
    expect(cache.get("st_1", 0)).toBeDefined();
    cache.forget("st_1");
    expect(cache.get("st_1", 0)).toBeUndefined();
    expect(cache.get("st_3", 0)).toBeDefined();
  });
});
