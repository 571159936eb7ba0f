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
});
