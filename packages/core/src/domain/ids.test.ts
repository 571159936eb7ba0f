import { describe, expect, it } from "vitest";
import { FakeClock } from "../memory/system-clock.js";
import { MonotonicIdGenerator } from "../memory/monotonic-id-generator.js";
import { ID_PREFIXES, encodeTime, idTime, incrementBase32, isId, lowestIdAt } from "./ids.js";

const fixedRandom = { bytes: (n: number) => new Uint8Array(n).fill(7) };

describe("identifiers", () => {
  it("carry the kind's prefix and a 26-character time-ordered part", () => {
    const ids = new MonotonicIdGenerator(new FakeClock(), fixedRandom);
    const id = ids.next("user");
    expect(id).toMatch(/^us_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(isId(id, "user")).toBe(true);
    expect(isId(id, "group")).toBe(false);
    expect(ids.next("group").startsWith(`${ID_PREFIXES.group}_`)).toBe(true);
  });

  it("sort by creation time as plain strings, across milliseconds", () => {
    const clock = new FakeClock();
    const ids = new MonotonicIdGenerator(clock, { bytes: (n) => crypto.getRandomValues(new Uint8Array(n)) });
    const made: string[] = [];
    for (let i = 0; i < 50; i++) {
      made.push(ids.next("status"));
      clock.advance(i % 3 === 0 ? 1 : 0);
    }
    expect([...made].sort()).toEqual(made);
    expect(new Set(made).size).toBe(made.length);
  });

  it("stay increasing within one millisecond and when the clock steps back", () => {
    const clock = new FakeClock("2026-05-01T00:00:00.000Z");
    const ids = new MonotonicIdGenerator(clock, fixedRandom);
    const first = ids.next("status");
    const second = ids.next("status");
    clock.advance(-10_000);
    const third = ids.next("status");
    expect(first < second && second < third).toBe(true);
  });

  it("encode the creation time so it can be read back", () => {
    const clock = new FakeClock("2026-05-01T12:34:56.789Z");
    const id = new MonotonicIdGenerator(clock, fixedRandom).next("report");
    expect(idTime(id)).toBe(clock.now().getTime());
    expect(lowestIdAt("report", clock.now().getTime()) <= id).toBe(true);
    expect(lowestIdAt("report", clock.now().getTime() + 1) > id).toBe(true);
  });

  it("carry into the next digit when incremented", () => {
    expect(incrementBase32("0z")).toBe("10");
    expect(() => incrementBase32("zz")).toThrow(RangeError);
    expect(encodeTime(0)).toBe("0000000000");
    expect(() => encodeTime(-1)).toThrow(RangeError);
  });
});
