import { describe, expect, it } from "vitest";
import { errorCatalog } from "../../domain/error-catalog.js";
import { KithError } from "../../domain/errors.js";
import { errorToResponse } from "./error-response.js";

const request = new Request("https://kith.test/api/v1/things");

describe("errors as responses", () => {
  it("take the status of the error's code from the catalog", () => {
    for (const code of [
      "request.malformed_json",
      "auth.unauthenticated",
      "auth.forbidden",
      "account.not_found",
      "request.body_too_large",
    ] as const) {
      expect(errorToResponse(new KithError(code), request).status).toBe(errorCatalog[code].status);
    }
  });

  it("send the message and code as JSON", async () => {
    const response = errorToResponse(new KithError("account.not_found"), request);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: "Account not found", code: "account.not_found" });
  });

  it("send a message given where the error is thrown", async () => {
    const response = errorToResponse(new KithError("role.not_found", { message: "No global role named Mod" }), request);
    expect(await response.json()).toMatchObject({ error: "No global role named Mod" });
  });

  it("send the details when there are some", async () => {
    const details = [{ field: "body.username", message: "Too short", code: "too_small" }];
    const response = errorToResponse(new KithError("request.validation_failed", { details }), request);
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ error: "Validation failed", code: "request.validation_failed", details });
  });

  it("send a refusal's own fields beside the usual ones, which they never replace", async () => {
    const details = [{ field: "allowed_mentions", message: "us_1" }];
    const error = new KithError("status.unexpected_mentions", {
      details,
      fields: { unexpected_accounts: [{ id: "us_1" }], error: "replaced?", code: "replaced?" },
    });
    expect(await errorToResponse(error, request).json()).toEqual({
      error: "Post would be sent to unexpected accounts",
      code: "status.unexpected_mentions",
      details,
      unexpected_accounts: [{ id: "us_1" }],
    });
  });

  it("leave out empty details", async () => {
    const response = errorToResponse(new KithError("request.validation_failed", { details: [] }), request);
    expect(Object.keys(await response.json()).sort()).toEqual(["code", "error"]);
  });

  it("send Retry-After in whole seconds, rounded up", () => {
    const response = errorToResponse(new KithError("request.rate_limited", { retryAfterSeconds: 12.2 }), request);
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("13");
  });

  it("never send a Retry-After below one second", () => {
    const response = errorToResponse(new KithError("request.rate_limited", { retryAfterSeconds: 0 }), request);
    expect(response.headers.get("retry-after")).toBe("1");
  });

  it("send no Retry-After when the error has none", () => {
    expect(errorToResponse(new KithError("auth.forbidden"), request).headers.has("retry-after")).toBe(false);
  });

  it("recognise a Kith error from another copy of the module by its code", async () => {
    const foreign = Object.assign(new Error("That content type is not supported here"), { code: "request.unsupported_media_type" });
    const response = errorToResponse(foreign, request);
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: "request.unsupported_media_type" });
  });

  it("answer anything else with a 500 that tells nothing of the error", async () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'secretColumn')");
    const response = errorToResponse(bug, request);
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ error: errorCatalog["server.internal"].message, code: "server.internal" });
    expect(text).not.toContain("secretColumn");
    expect(text).not.toContain("TypeError");
    expect(text).not.toMatch(/\bat .*\.ts:\d+/);
  });

  it("answer a thrown non-error value with a 500", async () => {
    const response = errorToResponse("just a string", request);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: errorCatalog["server.internal"].message, code: "server.internal" });
  });

  it("treat an object whose code is not in the catalog as a bug", () => {
    const foreign = Object.assign(new Error("duplicate key"), { code: "23505" });
    expect(errorToResponse(foreign, request).status).toBe(500);
  });
});
