import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { InstanceV1Json, InstanceV2Json } from "../../packages/core/src/mastodon/entities/instance.js";
import { missingKeys } from "../support/entity-keys.js";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("instance entities", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
    await kith.services.settings.update({ rules: [{ id: "1", text: "Be kind", hint: "" }] });
  });
  afterAll(() => kith.close());

  it("/api/v2/instance carries every key of Mastodon's Instance", async () => {
    const response = await kith.request("GET", "/api/v2/instance");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(missingKeys(InstanceV2Json, body)).toEqual([]);
    expect(InstanceV2Json.safeParse(body).error?.issues).toBeUndefined();
    expect(body.rules).toEqual([{ id: "1", text: "Be kind", hint: "" }]);
  });

  it("/api/v1/instance carries every key of Mastodon's V1::Instance", async () => {
    const response = await kith.request("GET", "/api/v1/instance");
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(missingKeys(InstanceV1Json, body)).toEqual([]);
    expect(InstanceV1Json.safeParse(body).error?.issues).toBeUndefined();
    expect(body.urls.streaming_api).toBe("wss://kith.test");
    expect(body.uri).toBe("kith.test");
  });

  it("announce the limits the server enforces", async () => {
    const limits = kith.config.limits;
    const v2 = await (await kith.request("GET", "/api/v2/instance")).json();
    const v1 = await (await kith.request("GET", "/api/v1/instance")).json();
    for (const configuration of [v2.configuration, v1.configuration]) {
      expect(configuration.statuses.max_characters).toBe(limits.statuses.maxCharacters);
      expect(configuration.media_attachments.supported_mime_types).toEqual(limits.mediaAttachments.supportedMimeTypes);
      expect(configuration.polls.max_options).toBe(limits.polls.maxOptions);
    }
  });

  it("are served to browsers on other origins", async () => {
    const response = await kith.request("GET", "/api/v2/instance", { headers: { origin: "https://elk.zone" } });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });
});
