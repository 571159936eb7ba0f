import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("routing through the fetch handler", (engine) => {
  let kith: TestKith;
  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  it("accepts a trailing slash", async () => {
    const response = await kith.request("GET", "/api/v2/instance/");
    expect(response.status).toBe(200);
    expect((await response.json()).domain).toBe("kith.test");
  });

  it("answers HEAD on a GET route with the GET status and headers and no body", async () => {
    const response = await kith.request("HEAD", "/api/v1/instance");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.text()).toBe("");
  });

  it("answers a path with an undecodable percent-escape with a JSON 404", async () => {
    const response = await kith.request("GET", "/api/v1/accounts/%E0%A4%A");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "request.not_found" });
  });

  it("answers 405 before looking at credentials", async () => {
    const response = await kith.request("POST", "/api/v1/accounts/verify_credentials");
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("GET");
  });

  it("serves the placeholder images as PNG", async () => {
    for (const path of ["/avatars/original/missing.png", "/headers/original/missing.png", "/instance/thumbnail.png"]) {
      const response = await kith.request("GET", path);
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toBe("image/png");
      const bytes = new Uint8Array(await response.arrayBuffer());
      expect([...bytes.slice(0, 4)]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    }
  });
});
