import { describe, expect, it } from "vitest";
import { jsonText } from "./json-text.js";

describe("jsonText", () => {
  it("is JSON.stringify, with the known texts of the value or a list's items used as they are", () => {
    const known = { id: "1" };
    const other = { id: "2", nested: [1, "x"] };
    const texts = new Map<object, string>([[known, '{"id":"1"}']]);
    const list = [known, other, null, undefined, () => 1, "s", 3];
    expect(jsonText(list, texts)).toBe(JSON.stringify(list));
    expect(jsonText(known, texts)).toBe('{"id":"1"}');
    expect(jsonText(other, texts)).toBe(JSON.stringify(other));
    expect(jsonText(undefined, texts)).toBe("null");
    expect(jsonText(list)).toBe(JSON.stringify(list));
  });

  it("takes a recorded text as it is, so a caller must record the entity's own JSON", () => {
    const entity = { id: "1" };
    expect(jsonText([entity], new Map([[entity, '{"id":"kept"}']]))).toBe('[{"id":"kept"}]');
  });
});
