import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";

describeOnEngines("markers", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const user = (): Promise<TestUser> => kith.createUser(`mk${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  it("starts empty, saves positions and bumps the version on each save", async () => {
    const me = await user();
    const empty = await kith.request("GET", "/api/v1/markers?timeline[]=home&timeline[]=notifications", { token: me.token });
    expect(await empty.json()).toEqual({});
    const saved = await kith.request("POST", "/api/v1/markers", { token: me.token, form: { "home[last_read_id]": "st_1" } });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ home: { last_read_id: "st_1", version: 0, updated_at: expect.any(String) } });
    await kith.request("POST", "/api/v1/markers", {
      token: me.token,
      json: { home: { last_read_id: "st_2" }, notifications: { last_read_id: "no_1" } },
    });
    const both = await kith.request("GET", "/api/v1/markers?timeline[]=home&timeline[]=notifications", { token: me.token });
    expect(await both.json()).toMatchObject({
      home: { last_read_id: "st_2", version: 1 },
      notifications: { last_read_id: "no_1", version: 0 },
    });
    const onlyHome = await kith.request("GET", "/api/v1/markers?timeline[]=home", { token: me.token });
    expect(Object.keys((await onlyHome.json()) as object)).toEqual(["home"]);
  });

  it("refuses a save over a newer version with 409", async () => {
    const me = await user();
    await kith.request("POST", "/api/v1/markers", { token: me.token, json: { home: { last_read_id: "st_1" } } });
    await kith.request("POST", "/api/v1/markers", { token: me.token, json: { home: { last_read_id: "st_2", version: 0 } } });
    const stale = await kith.request("POST", "/api/v1/markers", { token: me.token, json: { home: { last_read_id: "st_3", version: 0 } } });
    expect(stale.status).toBe(409);
    const current = await kith.request("GET", "/api/v1/markers?timeline[]=home", { token: me.token });
    expect(await current.json()).toMatchObject({ home: { last_read_id: "st_2", version: 1 } });
  });

  it("refuses unknown timelines and guests", async () => {
    const me = await user();
    const bad = await kith.request("GET", "/api/v1/markers?timeline[]=public", { token: me.token });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
    expect((await kith.request("GET", "/api/v1/markers")).status).toBe(401);
    expect((await kith.request("POST", "/api/v1/markers", { json: {} })).status).toBe(401);
  });

  it("keeps each user's markers apart", async () => {
    const [a, b] = [await user(), await user()];
    await kith.request("POST", "/api/v1/markers", { token: a.token, json: { home: { last_read_id: "st_9" } } });
    expect(await (await kith.request("GET", "/api/v1/markers?timeline[]=home", { token: b.token })).json()).toEqual({});
  });
});
