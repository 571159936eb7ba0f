import { describe, expect, it } from "vitest";
import { StatementCache } from "./statement-cache.js";

describe("statement cache", () => {
  it("prepares a text once while it is held", () => {
    const cache = new StatementCache<string>(4);
    const prepared: string[] = [];
    const prepare = (text: string) => {
      prepared.push(text);
      return `statement ${text}`;
    };
    expect(cache.get("a", prepare)).toBe("statement a");
    expect(cache.get("a", prepare)).toBe("statement a");
    expect(prepared).toEqual(["a"]);
  });

  it("holds at most its capacity", () => {
    const cache = new StatementCache<string>(4);
    for (let i = 0; i < 50; i++) cache.get(`t${i}`, (text) => text);
    expect(cache.size).toBeLessThanOrEqual(4);
  });

  it("keeps a statement used again while others come and go, and drops one left unused", () => {
    const cache = new StatementCache<string>(4);
    const prepared: string[] = [];
    const prepare = (text: string) => {
      prepared.push(text);
      return text;
    };
    cache.get("hot", prepare);
    cache.get("cold", prepare);
    for (let i = 0; i < 20; i++) {
      cache.get(`t${i}`, prepare);
      cache.get("hot", prepare);
    }
    cache.get("cold", prepare);
    expect(prepared.filter((text) => text === "hot")).toEqual(["hot"]);
    expect(prepared.filter((text) => text === "cold")).toEqual(["cold", "cold"]);
  });
});
