import { describe, expect, it } from "vitest";
import { type JsonPieces, type JsonText, jsonBody, jsonBytes, jsonString, utf8Of } from "./json-text.js";

const body = (value: string | JsonPieces) => (typeof value === "string" ? value : new TextDecoder().decode(utf8Of(value)));

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

  it("gives the pieces of the whole when a text holds kept bytes, strings and bytes in their order", () => {
    const first = { content: "caf\u00e9 \u{1f600}" };
    const second = { id: "2" };
    const texts = new Map<object, JsonText>([
      [first, [jsonBytes('{"content":'), '"caf\u00e9 \u{1f600}"', jsonBytes("}")]],
      [second, '{"id":"2"}'],
    ]);
    const list = [first, { other: true }, second];
    const answer = jsonBody(list, texts);
    expect(Array.isArray(answer)).toBe(true);
    // The kept bytes are handed on as they are, not copied.
    expect(answer).toContain((texts.get(first) as JsonPieces)[0]);
    expect(body(answer)).toBe(JSON.stringify(list));
    expect(Buffer.from(utf8Of(answer as JsonPieces)).equals(Buffer.from(JSON.stringify(list)))).toBe(true);
    expect(body(jsonBody(first, texts))).toBe(JSON.stringify(first));
    expect(jsonString(texts.get(first) as JsonText)).toBe(JSON.stringify(first));
  });
});
