import { describe, expect, it } from "vitest";
import { ACTIVITY_BOUNDS, boundPassed } from "./activity-bounds.js";

describe("the bounds of an activity read", () => {
  const note = (extra: Record<string, unknown>) => ({ type: "Create", actor: "https://a.example/u", object: { type: "Note", ...extra } });

  it("passes a usual activity", () => {
    expect(boundPassed(note({ content: "hi", tag: [{ type: "Hashtag", name: "#a" }], attachment: [] }))).toBeNull();
  });

  it("names the bound an activity passes", () => {
    expect(boundPassed(note({ tag: Array.from({ length: 129 }, () => ({})) }))).toBe('more than 128 items of "tag"');
    expect(boundPassed(note({ oneOf: Array.from({ length: 41 }, () => ({})) }))).toBe('more than 40 items of "oneOf"');
    expect(boundPassed(note({ content: "x".repeat(ACTIVITY_BOUNDS.maxStringLength + 1) }))).toBe("a string over 500000 characters");
    expect(boundPassed(note({ cc: Array.from({ length: 501 }, () => "https://b.example/u") }))).toBe("an array of more than 500 items");
    expect(boundPassed(note({ a: Array.from({ length: 10 }, () => Array.from({ length: 300 }, () => 1)) }))).toBe("more than 2000 values");
    let deep: unknown = 1;
    for (let i = 0; i < 30; i++) deep = [deep];
    expect(boundPassed(deep)).toBe("nesting deeper than 24");
  });

  it("reads a property named as an Object method as any other", () => {
    expect(boundPassed({ constructor: [1, 2, 3], toString: "x" })).toBeNull();
  });
});
