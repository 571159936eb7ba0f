import { afterEach, beforeEach, expect, it, vi } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("GET /health", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(() => kith.close());

  it("answers 200 with the database ok", async () => {
    const response = await kith.request("GET", "/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", database: "ok" });
  });

  it("answers 503 in the error format when the database does not answer", async () => {
    vi.spyOn(kith.storage, "ping").mockRejectedValue(new Error("connection refused to db.internal:5432"));
    const response = await kith.request("GET", "/health");
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(JSON.parse(text)).toMatchObject({ code: "server.unavailable" });
    expect(text).not.toContain("db.internal");
  });

  it("answers HEAD like GET, without a body", async () => {
    const response = await kith.request("HEAD", "/health");
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("");
  });
});
