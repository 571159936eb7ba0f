import { runInNewContext } from "node:vm";
import { eventually } from "@kith/core/testing";
import { describe, expect, it } from "vitest";
import { settleMemory, settleMemoryAfterStart, youngGenerationBytes } from "./settle-memory.js";

/** Survivors of many young collections in a row make V8 grow its young generation, as loading the server does. */
function growYoungGeneration(): number {
  const kept: number[][] = [];
  for (let round = 0; round < 200 && youngGenerationBytes() < 8 * 1024 * 1024; round++) {
    for (let i = 0; i < 2_000; i++) kept.push(Array.from({ length: 64 }, (_, j) => i + j));
  }
  return youngGenerationBytes();
}

describe("settleMemory", () => {
  it("shrinks a young generation that start-up grew, and leaves gc unexposed", () => {
    const grown = growYoungGeneration();
    expect(grown).toBeGreaterThanOrEqual(8 * 1024 * 1024);

    settleMemory();

    expect(youngGenerationBytes()).toBeLessThan(grown / 2);
    expect(runInNewContext("typeof gc")).toBe("undefined");
  });

  it("settles after start once the process idles", async () => {
    const grown = growYoungGeneration();
    expect(grown).toBeGreaterThanOrEqual(8 * 1024 * 1024);

    settleMemoryAfterStart(20);

    await eventually(() => expect(youngGenerationBytes()).toBeLessThan(grown / 2));
  });
});
