import { Note } from "@fedify/fedify/vocab";
import { Temporal } from "@js-temporal/polyfill";
import { describe, expect, it } from "vitest";
import { instantOf as compactInstantOf } from "./compact-values.js";
import { instantOf, parseInstant } from "./instant.js";

const pad = (value: number, width: number): string => String(value).padStart(width, "0");

/**
 * Texts of the common form, some of them not real dates (a 30th of February,
 * hour 24, second 60): each field steps through its range by a stride of its
 * own, so that the fields meet in many combinations and a failure names a
 * text that fails again.
 */
function generatedTexts(count: number): string[] {
  const texts: string[] = [];
  for (let i = 0; i < count; i++) {
    const date = `${pad(50 + ((i * 7919) % 9950), 4)}-${pad((i * 31) % 14, 2)}-${pad((i * 17) % 33, 2)}`;
    const time = `${pad((i * 13) % 25, 2)}:${pad((i * 7) % 61, 2)}:${pad((i * 11) % 61, 2)}`;
    const fraction =
      i % 3 === 0
        ? ""
        : `.${String((i * 104_729) % 1_000_000_000)
            .padStart(9, "0")
            .slice(0, 1 + (i % 9))}`;
    const offset = i % 4 === 0 ? "Z" : `${i % 2 ? "+" : "-"}${pad((i * 3) % 25, 2)}:${pad((i * 29) % 61, 2)}`;
    texts.push(`${date}T${time}${fraction}${offset}`);
  }
  return texts;
}

function polyfillRead(text: string): Temporal.Instant | null {
  try {
    return Temporal.Instant.from(text);
  } catch {
    return null;
  }
}

describe("parseInstant", () => {
  it("reads what it reads as Temporal does: the same nanosecond, printed alike", () => {
    let read = 0;
    for (const text of generatedTexts(5_000)) {
      const ours = parseInstant(text);
      if (ours === null) continue;
      read++;
      const theirs = polyfillRead(text);
      expect(theirs, text).not.toBeNull();
      expect(ours.epochNanoseconds, text).toBe(theirs?.epochNanoseconds);
      expect(ours.epochMilliseconds, text).toBe(theirs?.epochMilliseconds);
      expect(String(ours), text).toBe(String(theirs));
      expect(JSON.stringify({ at: ours }), text).toBe(JSON.stringify({ at: theirs }));
    }
    // Most generated texts are real dates: the fast path must have read them, not left them all to the polyfill.
    expect(read).toBeGreaterThan(2_000);
  });

  it.each([
    ["2026-02-29T00:00:00Z", "not a leap year"],
    ["2026-04-31T00:00:00Z", "April has 30 days"],
    ["2026-13-01T00:00:00Z", "month 13"],
    ["2026-00-10T00:00:00Z", "month 0"],
    ["2026-11-00T00:00:00Z", "day 0"],
    ["2026-11-20T24:00:00Z", "hour 24"],
    ["2026-11-20T10:60:00Z", "minute 60"],
    ["2016-12-31T23:59:60Z", "a leap second"],
    ["2026-11-20T10:15:30+24:00", "an offset of 24 hours"],
    ["0099-11-20T10:15:30Z", "a year before 100"],
    ["2026-11-20t10:15:30z", "lower-case separators"],
    ["2026-11-20 10:15:30Z", "a space for the T"],
    ["2026-11-20T10:15:30.1234567891Z", "ten digits of fraction"],
    ["2026-11-20T10:15:30", "no offset"],
    ["+002026-11-20T10:15:30Z", "an extended year"],
  ])("leaves %s to the full parser (%s)", (text) => {
    expect(parseInstant(text)).toBeNull();
  });

  it("prints a fraction as Temporal does, and the moment in UTC", () => {
    expect(String(parseInstant("2026-11-20T10:15:30.500Z"))).toBe("2026-11-20T10:15:30.5Z");
    expect(String(parseInstant("2026-11-20T10:15:30.000Z"))).toBe("2026-11-20T10:15:30Z");
    expect(String(parseInstant("2026-11-20T00:15:30.000000001+01:00"))).toBe("2026-11-19T23:15:30.000000001Z");
    expect(parseInstant("1969-12-31T23:59:59.999Z")?.epochMilliseconds).toBe(-1);
    expect(parseInstant("1969-12-31T23:59:59.9995Z")?.epochNanoseconds).toBe(-500_000n);
  });
});

describe("an activity's dates (compact-values.ts)", () => {
  it("are read in the common form without the polyfill, and in any other form by it", () => {
    const common = compactInstantOf("2026-11-20T10:15:30.123Z");
    expect(common).not.toBeInstanceOf(Temporal.Instant);
    expect(String(common)).toBe("2026-11-20T10:15:30.123Z");
    const leapSecond = compactInstantOf("2016-12-31T23:59:60Z");
    expect(leapSecond).toBeInstanceOf(Temporal.Instant);
    expect(String(leapSecond)).toBe("2016-12-31T23:59:59Z");
    expect(String(compactInstantOf("2026-11-20 10:15:30,5Z"))).toBe("2026-11-20T10:15:30.5Z");
    // A date without an offset is UTC, as Fedify reads it.
    expect(String(compactInstantOf("2026-11-20T10:15:30"))).toBe("2026-11-20T10:15:30Z");
    expect(compactInstantOf("2026-02-30T00:00:00Z")).toBeNull();
    expect(compactInstantOf("yesterday")).toBeNull();
    expect(compactInstantOf(1_700_000_000)).toBeNull();
  });

  it("pass the check of Fedify's vocabulary, which refuses a value of another shape", () => {
    const published = parseInstant("2026-11-20T10:15:30Z");
    expect(new Note({ published }).published).toBe(published);
    expect(() => new Note({ published: { toString: () => "2026-11-20T10:15:30Z" } as never })).toThrow(TypeError);
  });
});

describe("instantOf (Kith's own dates)", () => {
  it("prints as Date#toISOString and carries the same moment", () => {
    const instant = instantOf("2026-11-20T10:15:30Z");
    expect(String(instant)).toBe("2026-11-20T10:15:30.000Z");
    expect(instant.epochMilliseconds).toBe(Date.parse("2026-11-20T10:15:30Z"));
    expect(instant.epochNanoseconds).toBe(BigInt(Date.parse("2026-11-20T10:15:30Z")) * 1_000_000n);
  });
});
