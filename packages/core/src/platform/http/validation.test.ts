import { describe, expect, it } from "vitest";
import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { expandRailsParams } from "./rails-params.js";
import { validate } from "./validation.js";

/** The Kith error a call throws. */
function errorOf(call: () => unknown): KithError {
  try {
    call();
  } catch (error) {
    if (error instanceof KithError) return error;
    throw error;
  }
  throw new Error("Expected the call to throw");
}

const body = z.object({
  username: z.string().min(1).max(30),
  email: z.email(),
  age: z.number().int().optional(),
  mode: z.enum(["open", "closed"]).optional(),
});

describe("validating request input", () => {
  it("returns the parsed value when it is valid", () => {
    expect(validate(body, { username: "alice", email: "a@kith.test", extra: 1 }, "body")).toEqual({
      username: "alice",
      email: "a@kith.test",
    });
  });

  it("answers a missing field with request.invalid_parameters (400) and a detail naming it", () => {
    const error = errorOf(() => validate(body, { email: "a@kith.test" }, "body"));
    expect(error.code).toBe("request.invalid_parameters");
    expect(error.details).toEqual([expect.objectContaining({ field: "body.username", code: "invalid_type" })]);
  });

  it("answers a value of the wrong type with request.invalid_parameters (400)", () => {
    const error = errorOf(() => validate(body, { username: "alice", email: "a@kith.test", age: "old" }, "body"));
    expect(error.code).toBe("request.invalid_parameters");
    expect(error.details?.[0]?.field).toBe("body.age");
  });

  it("refuses a NUL character anywhere in parsed text with request.validation_failed (422), naming the field", () => {
    const nested = z.object({ filter: z.object({ keywords: z.array(z.string()) }) });
    const error = errorOf(() => validate(nested, { filter: { keywords: ["fine", "bad\u0000"] } }, "body"));
    expect(error.code).toBe("request.validation_failed");
    expect(error.details).toEqual([expect.objectContaining({ field: "body.filter.keywords.1", code: "nul_character" })]);
    expect(errorOf(() => validate(z.string(), "\u0000", "query")).details?.[0]?.field).toBe("query");
    expect(errorOf(() => validate(z.object({ id: z.string() }), { id: "st_\u0000" }, "params")).code).toBe("request.not_found");
    expect(validate(z.object({ text: z.string() }), { text: "tab\tand\u0001" }, "body")).toEqual({ text: "tab\tand\u0001" });
  });

  it("answers a value that is too small with request.validation_failed (422)", () => {
    const error = errorOf(() => validate(body, { username: "", email: "a@kith.test" }, "body"));
    expect(error.code).toBe("request.validation_failed");
    expect(error.details).toEqual([expect.objectContaining({ field: "body.username", code: "too_small" })]);
  });

  it("answers a value that is too big with request.validation_failed (422)", () => {
    const error = errorOf(() => validate(body, { username: "x".repeat(31), email: "a@kith.test" }, "body"));
    expect(error.code).toBe("request.validation_failed");
  });

  it("answers a value of the wrong format with request.validation_failed (422)", () => {
    const error = errorOf(() => validate(body, { username: "alice", email: "not an address" }, "body"));
    expect(error.code).toBe("request.validation_failed");
    expect(error.details).toEqual([expect.objectContaining({ field: "body.email", code: "invalid_format" })]);
  });

  it("answers a value outside an enumeration with request.validation_failed (422)", () => {
    const error = errorOf(() => validate(body, { username: "alice", email: "a@kith.test", mode: "half" }, "body"));
    expect(error.code).toBe("request.validation_failed");
  });

  it("answers a mix of malformed and invalid fields with 400, listing every issue", () => {
    const error = errorOf(() => validate(body, { username: "", email: 5 }, "body"));
    expect(error.code).toBe("request.invalid_parameters");
    expect(error.details?.map((detail) => detail.field).sort()).toEqual(["body.email", "body.username"]);
  });

  it("names query fields under query", () => {
    const error = errorOf(() => validate(z.object({ limit: z.number() }), {}, "query"));
    expect(error.details?.[0]?.field).toBe("query.limit");
  });

  it("names nested fields by their dot path", () => {
    const schema = z.object({ poll: z.object({ options: z.array(z.string().min(1)) }) });
    const error = errorOf(() => validate(schema, { poll: { options: ["a", ""] } }, "body"));
    expect(error.details?.[0]?.field).toBe("body.poll.options.1");
  });

  it("answers path parameters of the wrong type with request.not_found (404)", () => {
    const error = errorOf(() => validate(z.object({ index: z.number() }), { index: "x" }, "params"));
    expect(error.code).toBe("request.not_found");
  });

  it("answers path parameters of the wrong format with request.not_found (404), not 422", () => {
    const params = z.object({ reportId: z.string().regex(/^rp_/) });
    const error = errorOf(() => validate(params, { reportId: "us_1" }, "params"));
    expect(error.code).toBe("request.not_found");
    expect(error.details).toBeUndefined();
  });

  describe("a form's text where a structure is expected", () => {
    const profile = z.object({
      note: z.string().optional(),
      fields_attributes: z.array(z.object({ name: z.string(), value: z.string() })).optional(),
      source: z.object({ privacy: z.string().optional() }).optional(),
      required: z.object({ a: z.string() }).optional(),
    });
    const form = (entries: [string, string][]) => expandRailsParams(entries);

    it("drops it, as Rails' strong parameters do: `undefined` and the empty text, at the top and nested", () => {
      expect(
        validate(
          profile,
          form([
            ["fields_attributes", "undefined"],
            ["note", "undefined"],
          ]),
          "body",
        ),
      ).toEqual({ note: "undefined" });
      expect(
        validate(
          profile,
          form([
            ["fields_attributes", ""],
            ["source", ""],
          ]),
          "body",
        ),
      ).toEqual({});
      expect(
        validate(
          profile,
          form([
            ["fields_attributes[]", "undefined"],
            ["fields_attributes[1][name]", "a"],
            ["fields_attributes[1][value]", "b"],
          ]),
          "body",
        ),
      ).toEqual({ fields_attributes: [{ name: "a", value: "b" }] });
    });

    it("still refuses it from JSON, and a required structure dropped is still missing", () => {
      expect(errorOf(() => validate(profile, { fields_attributes: "undefined" }, "body")).code).toBe("request.invalid_parameters");
      const strict = z.object({ poll: z.object({ options: z.array(z.string()) }) });
      expect(errorOf(() => validate(strict, form([["poll", "undefined"]]), "body")).code).toBe("request.invalid_parameters");
    });
  });
});
