import { describe, expect, it } from "vitest";
import { systemRandom } from "./system-random.js";

describe("systemRandom", () => {
  it("gives the lengths asked for, each in a buffer of its own", () => {
    for (const length of [0, 1, 16, 255, 256, 257, 4096, 5000]) {
      const bytes = systemRandom.bytes(length);
      expect(bytes.length).toBe(length);
      expect(bytes.buffer.byteLength).toBe(length);
    }
  });

  it("never hands out the same bytes twice, across many draws of the pool", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) seen.add(Buffer.from(systemRandom.bytes(16)).toString("hex"));
    expect(seen.size).toBe(2000);
  });

  it("gives bytes spread evenly over every value (not the pool's zeroed remains)", () => {
    const counts = new Array<number>(256).fill(0);
    // 64 KB in draws of 18 and 32 bytes (tokens), crossing the pool's end many times.
    for (let drawn = 0, draw = 0; drawn < 65_536; draw++) {
      const bytes = systemRandom.bytes(draw % 2 === 0 ? 18 : 32);
      for (const byte of bytes) counts[byte] = (counts[byte] ?? 0) + 1;
      drawn += bytes.length;
    }
    // About 256 each, with a standard deviation of 16: outside 150-370 is beyond six deviations.
    expect(Math.min(...counts)).toBeGreaterThan(150);
    expect(Math.max(...counts)).toBeLessThan(370);
  });
});
