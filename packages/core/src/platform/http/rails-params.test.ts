import { describe, expect, it } from "vitest";
import { MAX_PARAMETER_DEPTH } from "./nesting-depth.js";
import { expandRailsParams } from "./rails-params.js";

/** Expands a query-string-like text, as forms and query strings arrive. */
function expand(text: string): Record<string, unknown> {
  return expandRailsParams(new URLSearchParams(text).entries());
}

describe("Rails-style parameters", () => {
  it("keep plain keys as strings", () => {
    expect(expand("status=hello&visibility=public")).toEqual({ status: "hello", visibility: "public" });
  });

  it("keep the last value of a repeated plain key", () => {
    expect(expand("limit=10&limit=20")).toEqual({ limit: "20" });
  });

  it("collect key[] values into an array, in order", () => {
    expect(expand("media_ids[]=3&media_ids[]=1&media_ids[]=2")).toEqual({ media_ids: ["3", "1", "2"] });
  });

  it("collect a single key[] value into a one-element array", () => {
    expect(expand("media_ids[]=1")).toEqual({ media_ids: ["1"] });
  });

  it("build nested objects from key[name]", () => {
    expect(expand("source[privacy]=unlisted&source[sensitive]=true")).toEqual({
      source: { privacy: "unlisted", sensitive: "true" },
    });
  });

  it("build arrays inside nested objects from poll[options][]", () => {
    expect(expand("poll[options][]=yes&poll[options][]=no&poll[expires_in]=300")).toEqual({
      poll: { options: ["yes", "no"], expires_in: "300" },
    });
  });

  it("build several levels of nesting", () => {
    expect(expand("a[b][c][d]=deep")).toEqual({ a: { b: { c: { d: "deep" } } } });
  });

  it("turn objects keyed by indexes into arrays ordered by index", () => {
    expect(
      expand(
        "fields_attributes[1][name]=Site&fields_attributes[1][value]=example.com&fields_attributes[0][name]=Pronouns&fields_attributes[0][value]=they",
      ),
    ).toEqual({
      fields_attributes: [
        { name: "Pronouns", value: "they" },
        { name: "Site", value: "example.com" },
      ],
    });
  });

  it("order indexes numerically, not as text", () => {
    const text = Array.from({ length: 12 }, (_, i) => `items[${11 - i}]=${11 - i}`).join("&");
    expect(expand(text)).toEqual({ items: Array.from({ length: 12 }, (_, i) => String(i)) });
  });

  it("leave objects with any non-index key as objects", () => {
    expect(expand("map[0]=zero&map[x]=ex")).toEqual({ map: { 0: "zero", x: "ex" } });
  });

  it("start a new element of key[][name] when the name repeats", () => {
    expect(expand("fields[][name]=a&fields[][value]=1&fields[][name]=b&fields[][value]=2")).toEqual({
      fields: [
        { name: "a", value: "1" },
        { name: "b", value: "2" },
      ],
    });
  });

  it.each([
    "__proto__[polluted]=yes",
    "__proto__=yes",
    "constructor[prototype][polluted]=yes",
    "a[__proto__][polluted]=yes",
    "prototype[polluted]=yes",
  ])("ignore %s without polluting prototypes", (text) => {
    const result = expand(text);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(JSON.stringify(result)).not.toContain("polluted");
  });

  it("keep plain keys as they are, the last of a repeated one winning, and top-level indexes as keys", () => {
    expect(expand("limit=40&max_id=7&limit=20&only_media=true")).toEqual({ limit: "20", max_id: "7", only_media: "true" });
    expect(expand("=x&a=1")).toEqual({ "": "x", a: "1" });
    expect(expand("0=a&1=b")).toEqual({ 0: "a", 1: "b" });
    expect(expand("0=id&ids[]=1")).toEqual({ 0: "id", ids: ["1"] });
    expect(expand("0[name]=a&0[value]=b")).toEqual({ 0: { name: "a", value: "b" } });
    expect(expand("limit=40&ids[]=1")).toEqual({ limit: "40", ids: ["1"] });
  });

  it("keep a malformed bracket key as a plain key", () => {
    expect(expand("a[b=1")).toEqual({ "a[b": "1" });
  });

  it("keep non-string values such as uploaded files", () => {
    const file = new File(["x"], "a.png", { type: "image/png" });
    const result = expandRailsParams([["media[file]", file]]);
    expect((result.media as { file: unknown }).file).toBe(file);
  });

  it("accept keys nested up to the depth bound", () => {
    const value = expand(`a${"[b]".repeat(MAX_PARAMETER_DEPTH)}=1`);
    expect(JSON.stringify(value)).toContain('"b":"1"');
  });

  it("refuse a key nested past the depth bound with 422", () => {
    expect(() => expand(`a${"[b]".repeat(MAX_PARAMETER_DEPTH + 1)}=1`)).toThrow(
      expect.objectContaining({ code: "request.nesting_too_deep" }),
    );
  });
});
