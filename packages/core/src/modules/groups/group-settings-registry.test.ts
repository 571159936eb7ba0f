import { describe, expect, it } from "vitest";
import { z } from "zod";
import { GroupSettingsRegistry, groupSettingsRegistry, storedValue } from "./group-settings-registry.js";

const note = {
  key: "note",
  description: "A note",
  schema: z.object({ text: z.string(), pinned: z.boolean().optional() }),
  default: { text: "" },
};

describe("the group settings registry", () => {
  it("holds the groups module's own settings", () => {
    expect(
      groupSettingsRegistry()
        .all()
        .map((setting) => setting.key),
    ).toEqual(["join_mode", "posting", "status_privacy", "calendar"]);
  });

  it("refuses a key twice, a key not [a-z][a-z0-9_]*, and a default its schema refuses", () => {
    const registry = new GroupSettingsRegistry();
    registry.register({ ...note, readableBy: "members" });
    expect(() => registry.register({ ...note, readableBy: "public" })).toThrow(/twice/);
    expect(() => registry.register({ ...note, key: "Note", readableBy: "public" })).toThrow(/not \[a-z\]/);
    expect(() => registry.register({ ...note, key: "other", default: { text: 1 }, readableBy: "public" })).toThrow(/default/);
  });

  it("names the missing fields of a partial value, not its optional ones, and refuses fields the setting lacks", () => {
    const registry = new GroupSettingsRegistry();
    registry.register({ ...note, readableBy: "public" });
    const setting = registry.get("note");
    if (!setting) throw new Error("registered above");
    expect(registry.check(setting, { text: "hi" })).toEqual({ value: { text: "hi" } });
    expect(registry.check(setting, { pinned: true })).toEqual({
      problems: [expect.objectContaining({ field: "note.text", code: "missing" })],
    });
    expect(registry.check(setting, { text: "hi", colour: "red" })).toEqual({
      problems: [expect.objectContaining({ field: "note.colour", code: "unknown_field" })],
    });
    expect(registry.check(setting, "hi")).toEqual({ problems: [expect.objectContaining({ field: "note", code: "not_object" })] });
  });

  it("reads a stored value back, and the default for none or for one its schema no longer takes", () => {
    const setting = { ...note, readableBy: "public" as const };
    expect(storedValue(setting, JSON.stringify({ text: "kept" }))).toEqual({ text: "kept" });
    expect(storedValue(setting, undefined)).toEqual({ text: "" });
    expect(storedValue(setting, JSON.stringify({ words: "old shape" }))).toEqual({ text: "" });
  });
});
