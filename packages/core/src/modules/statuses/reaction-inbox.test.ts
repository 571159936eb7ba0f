import { describe, expect, it } from "vitest";
import { reactionNameOf } from "./reaction-inbox.js";

describe("reactionNameOf", () => {
  it("takes a Unicode emoji as written and a custom one by its shortcode", () => {
    expect(reactionNameOf("🔥")).toEqual({ name: "🔥", custom: false });
    expect(reactionNameOf(" 👍🏽 ")).toEqual({ name: "👍🏽", custom: false });
    expect(reactionNameOf("🇫🇷")).toEqual({ name: "🇫🇷", custom: false });
    expect(reactionNameOf(":blob_cat:")).toEqual({ name: "blob_cat", custom: true });
  });

  it("refuses what names no emoji", () => {
    for (const text of ["", "hello", ":a:", "<b>🔥</b>", "🔥 and more words", `${"🔥".repeat(20)}`, ":not valid:"]) {
      expect(reactionNameOf(text), text).toBeNull();
    }
  });
});
