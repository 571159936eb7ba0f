import { describe, expect, it } from "vitest";
import { RenderMemo } from "./render-memo.js";

describe("RenderMemo", () => {
  it("gives back what was made from the same inputs, and makes it again when any differs", () => {
    const memo = new RenderMemo<string>(10);
    let made = 0;
    const make = (text: string) => () => {
      made++;
      return text;
    };
    const part = { same: "object" };
    expect(memo.getOrMake("a", ["x", 1, part, null], make("first"))).toBe("first");
    expect(memo.getOrMake("a", ["x", 1, part, null], make("second"))).toBe("first");
    expect(made).toBe(1);
    expect(memo.getOrMake("a", ["x", 2, part, null], make("third"))).toBe("third");
    expect(memo.getOrMake("a", ["x", 2, { same: "object" }, null], make("fourth"))).toBe("fourth");
    expect(memo.getOrMake("a", ["x", 2, part], make("fifth"))).toBe("fifth");
    expect(memo.get("b", ["x", 2, part])).toBeUndefined();
    memo.forget("a");
    expect(memo.get("a", ["x", 2, part])).toBeUndefined();
  });

  it("keeps the most recently used up to its capacity", () => {
    const memo = new RenderMemo<number>(2);
    memo.set("a", [1], 1);
    memo.set("b", [1], 2);
    expect(memo.get("a", [1])).toBe(1);
    memo.set("c", [1], 3);
    expect(memo.size).toBe(2);
    expect(memo.get("b", [1])).toBeUndefined();
    expect(memo.get("a", [1])).toBe(1);
    expect(memo.get("c", [1])).toBe(3);
  });
});
