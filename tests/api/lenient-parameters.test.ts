import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";

// Parameters as Rails reads them: an index as a query key is a parameter a route does not take (ignored), and a
// form's text where a structure is expected is dropped, as strong parameters drop it.
describeOnEngines("lenient parameters", (engine) => {
  let kith: TestKith;
  let alice: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("lenient");
  });
  afterAll(() => kith.close());

  it("a query whose only keys are indexes (`?0=id`) is answered as if they were not there, on every route", async () => {
    for (const path of ["/api/v1/timelines/public?0=id", "/api/v1/instance?0=a&1=b", "/api/v2/instance?0=id"]) {
      expect((await kith.request("GET", path)).status, path).toBe(200);
    }
    for (const path of ["/api/v1/accounts/verify_credentials?0=id", "/api/v1/notifications?0=id", "/api/v1/timelines/home?0=id&limit=5"]) {
      expect((await kith.request("GET", path, { token: alice.token })).status, path).toBe(200);
    }
    // A form body is read the same way.
    const posted = await kith.request("POST", "/api/v1/statuses", {
      token: alice.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "0=id&status=indexes+ignored",
    });
    expect(posted.status).toBe(200);
    // Parameters a route does take keep their checks.
    expect((await kith.request("GET", "/api/v1/timelines/public?0=id&limit=nope")).status).toBe(400);
  });

  it("no GET route answers `?0=id` otherwise than without it", async () => {
    const differing: string[] = [];
    for (const route of routeTable.filter((candidate) => candidate.method === "GET")) {
      const path = route.path.replace(/\{\w+\}/g, "sample");
      const plain = await kith.request("GET", path, { token: alice.token });
      const indexed = await kith.request("GET", `${path}${path.includes("?") ? "&" : "?"}0=id&1=x`, { token: alice.token });
      await Promise.all([plain.body?.cancel(), indexed.body?.cancel()]);
      if (plain.status !== indexed.status) differing.push(`${route.path}: ${plain.status} then ${indexed.status}`);
    }
    expect(differing).toEqual([]);
  });

  it("multipart `fields_attributes=undefined` or empty leaves the fields as they are, and the rest is applied", async () => {
    const fields = { fields_attributes: [{ name: "Pronouns", value: "they" }] };
    expect((await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: alice.token, json: fields })).status).toBe(200);
    for (const text of ["undefined", ""]) {
      const form = new FormData();
      form.set("display_name", `Alice ${text || "empty"}`);
      form.set("fields_attributes", text);
      form.set("source", text);
      const response = await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: alice.token, body: form });
      expect(response.status, text).toBe(200);
      const account = (await response.json()) as { display_name: string; fields: { name: string; value: string }[] };
      expect(account.display_name).toBe(`Alice ${text || "empty"}`);
      expect(account.fields.map((field) => field.name)).toEqual(["Pronouns"]);
    }
    // In a form body too.
    const form = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
      token: alice.token,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "fields_attributes=undefined&note=hi",
    });
    expect(form.status).toBe(200);
  });

  it("JSON says what it means: a text for the fields is still refused, and so is a bad value of a field taken", async () => {
    const json = await kith.request("PATCH", "/api/v1/accounts/update_credentials", {
      token: alice.token,
      json: { fields_attributes: "undefined" },
    });
    expect(json.status).toBe(400);
    const body = (await json.json()) as { error: string; details: { field: string }[] };
    expect(body.details.map((detail) => detail.field)).toContain("body.fields_attributes");
    const form = new FormData();
    form.set("locked", "maybe");
    form.set("fields_attributes", "undefined");
    expect(
      (await kith.request("PATCH", "/api/v1/accounts/update_credentials", { token: alice.token, body: form })).status,
    ).toBeGreaterThanOrEqual(400);
  });
});
