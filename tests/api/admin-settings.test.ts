import { afterEach, beforeEach, expect, it } from "vitest";
import type { TestKith } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

const SETTINGS = "/api/v1/admin/settings";

describeOnEngines("admin settings", (engine) => {
  let kith: TestKith;
  beforeEach(async () => {
    kith = await engine.testKith();
  });
  afterEach(() => kith.close());

  const storedRows = () => kith.storage.db.selectFrom("instance_settings").selectAll().execute();

  it("GET without a token is 401", async () => {
    const response = await kith.request("GET", SETTINGS);
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ code: "auth.unauthenticated" });
  });

  it("PATCH without a token is 401 and writes nothing", async () => {
    const response = await kith.request("PATCH", SETTINGS, { json: { title: "Hacked" } });
    expect(response.status).toBe(401);
    expect(await storedRows()).toEqual([]);
  });

  it("GET as a plain User is 403", async () => {
    const user = await kith.createUser("user");
    const response = await kith.request("GET", SETTINGS, { token: user.token });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "auth.forbidden" });
  });

  it("PATCH as a plain User is 403 and writes nothing", async () => {
    const user = await kith.createUser("user");
    const response = await kith.request("PATCH", SETTINGS, { token: user.token, json: { title: "Hacked" } });
    expect(response.status).toBe(403);
    expect(await storedRows()).toEqual([]);
  });

  it("PATCH as a Moderator, who may not manage settings, is 403", async () => {
    const moderator = await kith.createUser("moderator", { role: "Moderator" });
    const response = await kith.request("PATCH", SETTINGS, { token: moderator.token, json: { title: "Mods" } });
    expect(response.status).toBe(403);
  });

  it.each(["Admin", "Owner"])("GET as %s is 200 with every setting", async (role) => {
    const admin = await kith.createUser("admin", { role });
    const response = await kith.request("GET", SETTINGS, { token: admin.token });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(await kith.services.settings.all());
  });

  it.each(["Admin", "Owner"])("PATCH as %s changes the settings given and returns them all", async (role) => {
    const admin = await kith.createUser("admin", { role });
    const response = await kith.request("PATCH", SETTINGS, {
      token: admin.token,
      json: { title: "Kith Town", registrationsMode: "approval" },
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ title: "Kith Town", registrationsMode: "approval", maxPinnedPosts: 5 });
    expect(await kith.services.settings.all()).toEqual(body);
  });

  it("PATCH leaves the settings it does not name as they were", async () => {
    const admin = await kith.createUser("admin", { role: "Admin" });
    const patch = (json: Record<string, unknown>) => kith.request("PATCH", SETTINGS, { token: admin.token, json });
    expect((await patch({ title: "Kept Title", maxPinnedPosts: 7 })).status).toBe(200);
    expect((await patch({ registrationsMode: "closed" })).status).toBe(200);
    expect(await kith.services.settings.all()).toMatchObject({ title: "Kept Title", maxPinnedPosts: 7, registrationsMode: "closed" });
  });

  it("PATCH with an unknown key is 422 and writes nothing, not even the valid keys", async () => {
    const admin = await kith.createUser("admin", { role: "Admin" });
    const before = await kith.services.settings.all();
    const response = await kith.request("PATCH", SETTINGS, { token: admin.token, json: { title: "Changed", noSuchSetting: true } });
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.code).toBe("settings.invalid_value");
    expect(body.details).toEqual([expect.objectContaining({ field: "noSuchSetting" })]);
    expect(await kith.services.settings.all()).toEqual(before);
    expect(await storedRows()).toEqual([]);
  });

  it("PATCH with a bad value is 422 and writes nothing, not even the valid keys", async () => {
    const admin = await kith.createUser("admin", { role: "Admin" });
    const response = await kith.request("PATCH", SETTINGS, { token: admin.token, json: { title: "Changed", maxPinnedPosts: -1 } });
    expect(response.status).toBe(422);
    const body = await response.json();
    expect(body.code).toBe("settings.invalid_value");
    expect(body.details).toEqual([expect.objectContaining({ field: "maxPinnedPosts" })]);
    expect(await storedRows()).toEqual([]);
  });

  it("PATCH with a value of the wrong type is 422", async () => {
    const admin = await kith.createUser("admin", { role: "Admin" });
    const response = await kith.request("PATCH", SETTINGS, { token: admin.token, json: { registrationsMode: "sometimes" } });
    expect(response.status).toBe(422);
    expect(await kith.services.settings.get("registrationsMode")).toBe("open");
  });

  it("GET with a token lacking admin:read is 403 even for an Admin", async () => {
    const admin = await kith.createUser("admin", { role: "Admin", scopes: ["read", "write"] });
    const response = await kith.request("GET", SETTINGS, { token: admin.token });
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "auth.insufficient_scope" });
  });
});
