import { afterEach, beforeEach, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("instance documents", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(() => kith.close());

  it("serves /api/v2/instance with the limits the server enforces", async () => {
    const response = await kith.request("GET", "/api/v2/instance");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.domain).toBe("kith.test");
    expect(body.configuration.statuses.max_characters).toBe(kith.config.limits.statuses.maxCharacters);
    expect(body.configuration.urls.streaming).toBe("wss://kith.test");
    expect(body.registrations).toMatchObject({ enabled: true, approval_required: false });
  });

  it("reflects the registrations setting", async () => {
    await kith.services.settings.update({ registrationsMode: "approval" });
    const body = await (await kith.request("GET", "/api/v1/instance")).json();
    expect(body.registrations).toBe(true);
    expect(body.approval_required).toBe(true);
  });
});
