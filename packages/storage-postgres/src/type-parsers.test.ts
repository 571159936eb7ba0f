import { describe, expect, it } from "vitest";
import { parseTimestamp, postgresTypes } from "./type-parsers.js";

describe("PostgreSQL type parsers", () => {
  it("reads timestamps in any session time zone as the UTC ISO string", () => {
    expect(parseTimestamp("2026-03-01 10:00:00+00")).toBe("2026-03-01T10:00:00.000Z");
    expect(parseTimestamp("2026-03-01 10:00:00.5+00")).toBe("2026-03-01T10:00:00.500Z");
    expect(parseTimestamp("2026-03-01 15:30:00.123+05:30")).toBe("2026-03-01T10:00:00.123Z");
    expect(parseTimestamp("2026-03-01 05:00:00.999-05")).toBe("2026-03-01T10:00:00.999Z");
    expect(parseTimestamp("1883-11-18 11:43:58-04:56:02")).toBe("1883-11-18T16:40:00.000Z");
  });

  it("truncates microseconds, takes a zoneless timestamp as UTC, and keeps early years and eras", () => {
    expect(parseTimestamp("2026-03-01 10:00:00.123999+00")).toBe("2026-03-01T10:00:00.123Z");
    expect(parseTimestamp("2026-03-01 10:00:00.25")).toBe("2026-03-01T10:00:00.250Z");
    expect(parseTimestamp("0044-03-15 12:00:00+00")).toBe("0044-03-15T12:00:00.000Z");
    expect(parseTimestamp("0044-03-15 12:00:00+00 BC")).toBe("-000043-03-15T12:00:00.000Z");
    expect(parseTimestamp("infinity")).toBe("infinity");
  });

  it("reads UTC timestamps with every fraction length as a Date would", () => {
    for (const fraction of ["", ".1", ".12", ".123", ".1234", ".12345", ".123456"]) {
      const expected = new Date(`2026-03-01T23:59:59${fraction.slice(0, 4)}Z`).toISOString();
      expect(parseTimestamp(`2026-03-01 23:59:59${fraction}+00`)).toBe(expected);
    }
    expect(parseTimestamp("1999-12-31 23:59:59.999+00")).toBe("1999-12-31T23:59:59.999Z");
    expect(parseTimestamp("12026-03-01 10:00:00+00")).toBe("+012026-03-01T10:00:00.000Z");
  });

  it("rejects a timestamp in a DateStyle other than ISO", () => {
    expect(() => parseTimestamp("Sun Mar 01 10:00:00 2026 UTC")).toThrow(/DateStyle/);
  });

  it("reads int8 as a number, JSON as text, and leaves other types to pg", () => {
    expect(postgresTypes.getTypeParser(20)("42")).toBe(42);
    expect(postgresTypes.getTypeParser(3802)('{"a": 1}')).toBe('{"a": 1}');
    expect(postgresTypes.getTypeParser(114)("[1]")).toBe("[1]");
    expect(postgresTypes.getTypeParser(16)("t")).toBe(true);
    expect(postgresTypes.getTypeParser(23)("7")).toBe(7);
  });
});
