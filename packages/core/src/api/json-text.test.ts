import { describe, expect, it } from "vitest";
import { type JsonText, jsonBody, jsonBytes, jsonString } from "./json-text.js";

const body = (value: string | Uint8Array) => (typeof value === "string" ? value : new TextDecoder().decode(value));

describe("jsonBody", () => {
  it("is JSON.stringify, with the known texts of the value or a list's items used as they are", () => {
    const known = { id: "1" };
    const other = { id: "2", nested: [1, "x"] };
    const texts = new Map<object, JsonText>([[known, '{"id":"1"}']]);
    const list = [known, other, null, undefined, () => 1, "s", 3];
    expect(jsonBody(list, texts)).toBe(JSON.stringify(list));
    expect(jsonBody(known, texts)).toBe('{"id":"1"}');
    expect(jsonBody(other, texts)).toBe(JSON.stringify(other));
    expect(jsonBody(undefined, texts)).toBe("null");
    expect(jsonBody(list)).toBe(JSON.stringify(list));
  });

  it("takes a recorded text as it is, so a caller must record the entity's own JSON", () => {
    const entity = { id: "1" };
    expect(jsonBody([entity], new Map([[entity, '{"id":"kept"}']]))).toBe('[{"id":"kept"}]');
  });

  it("gives the UTF-8 bytes of the whole when a text holds kept bytes, strings and bytes in their order", () => {
    const first = { content: "caf\u00e9 \u{1f600}" };
    const second = { id: "2" };
    const texts = new Map<object, JsonText>([
      [first, [jsonBytes('{"content":'), '"caf\u00e9 \u{1f600}"', jsonBytes("}")]],
      [second, '{"id":"2"}'],
    ]);
    const list = [first, { other: true }, second];
    const answer = jsonBody(list, texts);
    expect(answer).toBeInstanceOf(Uint8Array);
    expect(body(answer)).toBe(JSON.stringify(list));
    expect(body(jsonBody(first, texts))).toBe(JSON.stringify(first));
    expect(jsonString(texts.get(first) as JsonText)).toBe(JSON.stringify(first));
  });
});
