import { describe, expect, it } from "vitest";
import { FakeClock } from "../../memory/system-clock.js";
import { CommonTermsMemo } from "./common-terms-memo.js";

describe("CommonTermsMemo", () => {
  function asking(answer: boolean) {
    const asked: number[] = [];
    return {
      asked,
      ask: async () => {
        asked.push(asked.length);
        return answer;
      },
    };
  }

  it("answers again what the database answered, until the answer is older than its time to live", async () => {
    const clock = new FakeClock();
    const memo = new CommonTermsMemo(clock, { ttlMs: 1_000, capacity: 10 });
    const lantern = asking(true);
    expect(await memo.common(["lantern"], lantern.ask)).toBe(true);
    clock.advance(999);
    expect(await memo.common(["lantern"], lantern.ask)).toBe(true);
    expect(lantern.asked).toHaveLength(1);
    clock.advance(1);
    const changed = asking(false);
    expect(await memo.common(["lantern"], changed.ask)).toBe(false);
    expect(changed.asked).toHaveLength(1);
  });

  it("keeps each set of terms apart, in order, and no more sets than its capacity", async () => {
    const memo = new CommonTermsMemo(new FakeClock(), { ttlMs: 60_000, capacity: 2 });
    expect(await memo.common(["lantern", "river"], asking(true).ask)).toBe(true);
    expect(await memo.common(["river", "lantern"], asking(false).ask)).toBe(false);
    expect(await memo.common(["lantern", "river"], asking(false).ask)).toBe(true);
    // A third set drops the one used longest ago.
    expect(await memo.common(["zephyr"], asking(false).ask)).toBe(false);
    const again = asking(true);
    expect(await memo.common(["river", "lantern"], again.ask)).toBe(true);
    expect(again.asked).toHaveLength(1);
  });

  it("remembers nothing when the database could not answer", async () => {
    const memo = new CommonTermsMemo(new FakeClock(), { ttlMs: 60_000, capacity: 2 });
    await expect(
      memo.common(["lantern"], async () => {
        throw new Error("connection lost");
      }),
    ).rejects.toThrow("connection lost");
    const next = asking(true);
    expect(await memo.common(["lantern"], next.ask)).toBe(true);
    expect(next.asked).toHaveLength(1);
  });
});
