import { describe, expect, it } from "vitest";
import { BoundedMap } from "./bounded-map.js";

describe("a bounded map", () => {
  it("drops the entry written longest ago once past its capacity; writing a key again makes it the newest", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    map.set("a", 3);
    map.set("c", 4);
    expect(map.get("b")).toBeUndefined();
    expect(map.get("a")).toBe(3);
    expect(map.get("c")).toBe(4);
    expect(map.size).toBe(2);
  });

  it("keeps an entry read with use() over one only read with get()", () => {
    const map = new BoundedMap<string, number>(2);
    map.set("a", 1);
    map.set("b", 2);
    expect(map.get("a")).toBe(1);
    map.set("c", 3);
    expect(map.get("a")).toBeUndefined();
    expect(map.use("b")).toBe(2);
    map.set("d", 4);
    expect(map.get("b")).toBe(2);
    expect(map.get("c")).toBeUndefined();
    expect(map.delete("b")).toBe(true);
    expect(map.size).toBe(1);
  });

  it("never drops an entry within half its capacity of writes after its last use", () => {
    const capacity = 8;
    const map = new BoundedMap<string, number>(capacity);
    for (let i = 0; i < capacity; i++) map.set(`k${i}`, i);
    // k0 used after every write: however many writes follow, it stays.
    for (let i = capacity; i < capacity * 10; i++) {
      expect(map.use("k0"), `write ${i}`).toBe(0);
      map.set(`k${i}`, i);
    }
    // Used once more, then left alone: it outlasts half the capacity of writes.
    expect(map.use("k0")).toBe(0);
    for (let i = 0; i < capacity / 2; i++) map.set(`later${i}`, i);
    expect(map.get("k0")).toBe(0);
    for (let i = 0; i < capacity; i++) map.set(`last${i}`, i);
    expect(map.get("k0")).toBeUndefined();
    expect(map.size).toBe(capacity);
  });
});
