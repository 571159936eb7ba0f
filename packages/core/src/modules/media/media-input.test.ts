import { describe, expect, it } from "vitest";
import { displayFileName, normalizeTags, parseFocus } from "./media-input.js";

describe("media input", () => {
  it.each([
    ["../../etc/passwd", "passwd"],
    ["C:\\Users\\me\\photo.jpg", "photo.jpg"],
    ["dir/..", null],
    ["a\u0000b\u001f.png", "ab.png"],
    ["", null],
    [null, null],
  ])("displays the file name %j as %j", (name, shown) => {
    expect(displayFileName(name)).toBe(shown);
  });

  it("keeps file names to 255 characters", () => {
    expect(displayFileName(`${"x".repeat(400)}.png`)?.length).toBe(255);
  });

  it("parses focal points from -1 to 1 and refuses others", () => {
    expect(parseFocus("0.5,-1")).toEqual({ x: 0.5, y: -1 });
    expect(parseFocus(undefined)).toBeNull();
    expect(parseFocus(" ")).toBeNull();
    for (const bad of ["1.5,0", "0", "a,b", "0,0,0", "NaN,0"]) expect(() => parseFocus(bad)).toThrow();
  });

  it("keeps tags unique regardless of case and refuses odd characters", () => {
    expect(normalizeTags(["Post", "post", " Avatar "])).toEqual(["Post", "Avatar"]);
    for (const bad of ['"x"', "a%b", "", "x".repeat(33)]) expect(() => normalizeTags([bad])).toThrow();
    expect(() => normalizeTags(Array.from({ length: 11 }, (_, i) => `t${i}`))).toThrow();
  });
});
