import { afterAll, beforeAll, expect, it } from "vitest";
import { APP_REGISTRATIONS_PER_IP, APP_REGISTRATION_WINDOW_SECONDS } from "../../packages/core/src/modules/auth/oauth-rate-limits.js";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("application registration limits", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const freshIp = () => `10.9.${Math.floor(++serial / 250)}.${serial % 250}`;
  const register = (json: unknown, clientIp = freshIp()) => kith.request("POST", "/api/v1/apps", { json, clientIp });

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  it("refuses a 900 KB body of redirect URIs without reading it into an application (413)", async () => {
    const response = await register({ client_name: "big", redirect_uris: `https://client.example/${"a".repeat(900_000)}` });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "request.body_too_large" });
  });

  it("refuses a redirect URI longer than 2000 characters, and more than 16 of them (422)", async () => {
    const long = await register({ client_name: "long", redirect_uris: `https://client.example/${"a".repeat(2_000)}` });
    expect(long.status).toBe(422);
    const many = Array.from({ length: 17 }, (_, i) => `https://client.example/cb${i}`);
    expect((await register({ client_name: "many", redirect_uris: many })).status).toBe(422);
    expect((await register({ client_name: "many", redirect_uris: many.join("\n") })).status).toBe(422);
    expect((await register({ client_name: "enough", redirect_uris: many.slice(0, 16) })).status).toBe(200);
  });

  it("limits registrations per address: 429 with Retry-After, other addresses unaffected", async () => {
    const ip = freshIp();
    for (let i = 0; i < APP_REGISTRATIONS_PER_IP; i++) {
      expect((await register({ client_name: `app ${i}`, redirect_uris: "urn:ietf:wg:oauth:2.0:oob" }, ip)).status).toBe(200);
    }
    const limited = await register({ client_name: "one more", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" }, ip);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await register({ client_name: "elsewhere", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" })).status).toBe(200);
    kith.clock.advance(APP_REGISTRATION_WINDOW_SECONDS * 1000);
    expect((await register({ client_name: "later", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" }, ip)).status).toBe(200);
  });
});
