import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

/** `a[b][b]...[b]=1` with `depth` bracket groups, as a form body or query string. */
function bracketed(depth: number): string {
  return `a${"[b]".repeat(depth)}=1`;
}

describeOnEngines("deeply nested parameters", (engine) => {
  let kith: TestKith;
  let user: TestUser;
  beforeAll(async () => {
    kith = await engine.testKith();
    user = await kith.createUser("alice");
  });
  afterAll(() => kith.close());

  it("a form body of 50 000 nested brackets is 422 on routes that need no token", async () => {
    for (const path of ["/oauth/token", "/api/v1/accounts/password/recover"]) {
      const response = await kith.request("POST", path, {
        body: bracketed(50_000),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
      expect(response.status, path).toBe(422);
      expect(await response.json()).toMatchObject({ code: "request.nesting_too_deep" });
    }
  });

  it("a body with no content type that looks like a form is bounded the same way", async () => {
    // 20 000 levels: the registration body is capped at 64 KB, and this much overflowed the stack too.
    const response = await kith.request("POST", "/api/v1/apps", { body: new TextEncoder().encode(bracketed(20_000)) });
    expect(response.status).toBe(422);
  });

  it("a query string of nested brackets is 422", async () => {
    const response = await kith.request("GET", `/api/v1/timelines/home?${bracketed(50_000)}`, { token: user.token });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "request.nesting_too_deep" });
  });

  it("a JSON body nested 100 000 deep is 422", async () => {
    const response = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
      token: user.token,
      body: `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`,
      headers: { "content-type": "application/json" },
    });
    expect(response.status).toBe(422);
    expect(await response.json()).toMatchObject({ code: "request.nesting_too_deep" });
  });

  it("the nesting real clients send still works", async () => {
    const response = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
      token: user.token,
      body: "fields_attributes[0][name]=site&fields_attributes[0][value]=example&source[privacy]=unlisted",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(200);
    const account = (await response.json()) as { fields: { name: string }[]; source: { privacy: string } };
    expect(account.fields[0]?.name).toBe("site");
    expect(account.source.privacy).toBe("unlisted");
  });
});
