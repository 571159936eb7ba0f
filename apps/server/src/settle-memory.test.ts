import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { settleMemory, youngGenerationBytes } from "./settle-memory.js";

describe("settleMemory", () => {
  it("shrinks a young generation that start-up grew, and leaves gc unexposed", () => {
    // Survivors of many young collections in a row make V8 grow its young generation, as loading the server does.
    let kept: number[][] = [];
    for (let round = 0; round < 200 && youngGenerationBytes() < 8 * 1024 * 1024; round++) {
      for (let i = 0; i < 2_000; i++) kept.push(Array.from({ length: 64 }, (_, j) => i + j));
    }
    const grown = youngGenerationBytes();
    expect(grown).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    kept = [];

    settleMemory();

    expect(kept).toHaveLength(0);
    expect(youngGenerationBytes()).toBeLessThan(grown / 2);
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });
});
