import { describe, expect, it } from "vitest";
import { BodyTooLargeError, bodyLimitFor } from "./body-limits.js";

describe("bodyLimitFor", () => {
  it("gives JSON, +json, form-encoded and untyped bodies the JSON limit", () => {
    const limits = { json: 10, other: 1000 };
    for (const type of [
      undefined,
      "",
      "application/json",
      "Application/JSON; charset=utf-8",
      "application/activity+json",
      "application/x-www-form-urlencoded",
    ]) {
      expect(bodyLimitFor(type, limits), String(type)).toBe(10);
    }
    for (const type of ["multipart/form-data; boundary=x", "image/png", "application/octet-stream", "text/plain"]) {
      expect(bodyLimitFor(type, limits), type).toBe(1000);
    }
  });

  it("defaults to 1 MB for JSON and 100 MiB for the rest", () => {
    expect(bodyLimitFor("application/json")).toBe(1_000_000);
    expect(bodyLimitFor("video/mp4")).toBe(100 * 1024 * 1024);
  });

  it("makes errors that carry the core's code", () => {
    const error = new BodyTooLargeError(10);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe("request.body_too_large");
    expect(error.limit).toBe(10);
  });
});
