import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("CORS", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  const preflight = (path: string) =>
    kith.request("OPTIONS", path, {
      headers: {
        origin: "https://elk.zone",
        "access-control-request-method": "PATCH",
        "access-control-request-headers": "authorization, content-type, idempotency-key",
      },
    });

  it("answers a preflight on an /api/ path with 204 and the allowed methods and headers", async () => {
    const response = await preflight("/api/v1/admin/settings");
    expect(response.status).toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-methods")).toContain("PATCH");
    expect(response.headers.get("access-control-allow-headers")).toBe("authorization, content-type, idempotency-key");
  });

  it("answers a preflight on an /api/ path the table does not know", async () => {
    const response = await preflight("/api/v1/streaming/health");
    expect(response.status).toBe(204);
  });

  it("answers a preflight without asking for credentials", async () => {
    const response = await preflight("/api/v1/accounts/verify_credentials");
    expect(response.status).toBe(204);
  });

  it("exposes the Link header to scripts on API responses", async () => {
    const response = await kith.request("GET", "/api/v1/instance", { headers: { origin: "https://elk.zone" } });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-expose-headers")).toContain("Link");
  });

  it("adds the headers to API error responses too", async () => {
    const response = await kith.request("GET", "/api/v1/accounts/verify_credentials", { headers: { origin: "https://elk.zone" } });
    expect(response.status).toBe(401);
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("does not answer preflights outside the API paths", async () => {
    const response = await preflight("/health");
    expect(response.status).not.toBe(204);
    expect(response.headers.get("access-control-allow-origin")).toBeNull();
  });
});
