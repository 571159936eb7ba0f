import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KithError, publicAccess, route } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { createFetchHandler } from "../../packages/core/src/platform/http/fetch-handler.js";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";

describeOnEngines("error responses", (engine) => {
  let kith: TestKith;
  let admin: TestUser;
  beforeAll(async () => {
    kith = await engine.testKith();
    admin = await kith.createUser("admin", { role: "Admin" });
  });
  afterAll(() => kith.close());

  it("an unknown route is 404 with the JSON error body", async () => {
    const response = await kith.request("GET", "/api/v1/no/such/thing");
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ error: expect.any(String), code: "request.not_found" });
  });

  it("an unknown route outside /api is 404 with the JSON error body too", async () => {
    const response = await kith.request("GET", "/nothing-here");
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ code: "request.not_found" });
  });

  it("a known path with the wrong method is 405 with Allow", async () => {
    const response = await kith.request("DELETE", "/api/v1/admin/settings", { token: admin.token });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")?.split(/,\s*/).sort()).toEqual(["GET", "PATCH"]);
    expect(await response.json()).toMatchObject({ code: "request.method_not_allowed" });
  });

  it("malformed JSON is 400 request.malformed_json", async () => {
    const response = await kith.request("PATCH", "/api/v1/admin/settings", {
      token: admin.token,
      body: '{"title": ',
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: "request.malformed_json" });
  });

  it("a body over the size limit is 413 request.body_too_large", async () => {
    const title = "x".repeat(kith.config.limits.maxJsonBodyBytes);
    const response = await kith.request("PATCH", "/api/v1/admin/settings", { token: admin.token, json: { title } });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: "request.body_too_large" });
  });

  it("an unsupported content type is 415", async () => {
    const response = await kith.request("PATCH", "/api/v1/admin/settings", {
      token: admin.token,
      body: "<title>x</title>",
      headers: { "content-type": "application/xml" },
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ code: "request.unsupported_media_type" });
  });

  describe("an unexpected exception in a handler", () => {
    const secret = "SELECT password_hash FROM users failed at db.internal";
    const fetchWith = (handler: () => never) =>
      createFetchHandler({
        routes: [...routeTable, route({ method: "GET", path: "/api/v1/explode", summary: "Throws", access: publicAccess, handler })],
        services: kith.services,
        authenticate: (token) => kith.services.sessions.authenticate(token),
        config: kith.config,
      });

    it("is a 500 whose body has neither the stack nor the message", async () => {
      const fetch = fetchWith(() => {
        throw new Error(secret);
      });
      const response = await fetch(new Request("https://kith.test/api/v1/explode"));
      expect(response.status).toBe(500);
      const text = await response.text();
      expect(JSON.parse(text)).toEqual({ error: expect.any(String), code: "server.internal" });
      expect(text).not.toContain("password_hash");
      expect(text).not.toMatch(/\bat\s+\S+\s*\(|\.ts:\d+/);
    });

    it("still carries the CORS headers on /api paths", async () => {
      const fetch = fetchWith(() => {
        throw new TypeError(secret);
      });
      const response = await fetch(new Request("https://kith.test/api/v1/explode"));
      expect(response.status).toBe(500);
      expect(response.headers.get("access-control-allow-origin")).toBe("*");
    });

    it("that is a Kith error keeps its own status and code", async () => {
      const fetch = fetchWith(() => {
        throw new KithError("request.rate_limited", { retryAfterSeconds: 30 });
      });
      const response = await fetch(new Request("https://kith.test/api/v1/explode"));
      expect(response.status).toBe(429);
      expect(response.headers.get("retry-after")).toBe("30");
    });
  });
});
