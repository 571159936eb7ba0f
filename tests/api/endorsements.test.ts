/**
 * Endorsements (featured accounts): only a followed account can be endorsed,
 * the relationship says so, the caller's list and the profile's list show
 * it, and ending the follow ends the endorsement.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call } from "../support/groups.js";

describeOnEngines("endorsements", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const fresh = () => kith.createUser(`en${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  const follow = async (user: TestUser, target: TestUser) => {
    expect((await call(kith, "POST", `/api/v1/accounts/${target.account.id}/follow`, user.token)).status).toBe(200);
  };

  it("endorses a followed account: the relationship says endorsed, and both lists show it", async () => {
    const [me, friend] = [await fresh(), await fresh()];
    await follow(me, friend);
    const endorsed = await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/endorse`, me.token);
    expect(endorsed.status).toBe(200);
    expect(endorsed.body).toMatchObject({ id: friend.account.id, following: true, endorsed: true });

    const relationships = await call(kith, "GET", `/api/v1/accounts/relationships?id[]=${friend.account.id}`, me.token);
    expect(relationships.body[0].endorsed).toBe(true);
    const mine = await call(kith, "GET", "/api/v1/endorsements", me.token);
    expect(mine.body.map((account: { id: string }) => account.id)).toEqual([friend.account.id]);
    const profile = await call(kith, "GET", `/api/v1/accounts/${me.account.id}/endorsements`);
    expect(profile.status).toBe(200);
    expect(profile.body.map((account: { id: string }) => account.id)).toEqual([friend.account.id]);
  });

  it("refuses to endorse an account the caller does not follow, with 422", async () => {
    const [me, stranger] = [await fresh(), await fresh()];
    const refused = await call(kith, "POST", `/api/v1/accounts/${stranger.account.id}/endorse`, me.token);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: "endorsement.not_followed", error: expect.any(String) });
    const self = await call(kith, "POST", `/api/v1/accounts/${me.account.id}/pin`, me.token);
    expect(self.status).toBe(422);
  });

  it("answers 404 for an unknown account", async () => {
    const me = await fresh();
    expect((await call(kith, "POST", "/api/v1/accounts/us_nobody/endorse", me.token)).status).toBe(404);
    expect((await call(kith, "GET", "/api/v1/accounts/us_nobody/endorsements")).status).toBe(404);
  });

  it("pin and unpin are the older names of endorse and unendorse", async () => {
    const [me, friend] = [await fresh(), await fresh()];
    await follow(me, friend);
    expect((await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/pin`, me.token)).body.endorsed).toBe(true);
    expect((await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/unpin`, me.token)).body.endorsed).toBe(false);
    expect((await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/endorse`, me.token)).body.endorsed).toBe(true);
    expect((await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/unendorse`, me.token)).body.endorsed).toBe(false);
    expect((await call(kith, "GET", "/api/v1/endorsements", me.token)).body).toEqual([]);
  });

  it("unfollowing ends the endorsement", async () => {
    const [me, friend] = [await fresh(), await fresh()];
    await follow(me, friend);
    await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/endorse`, me.token);
    expect((await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/unfollow`, me.token)).body.endorsed).toBe(false);
    expect((await call(kith, "GET", "/api/v1/endorsements", me.token)).body).toEqual([]);
  });

  it("pages the caller's endorsements with Link, newest first", async () => {
    const me = await fresh();
    const friends = [await fresh(), await fresh(), await fresh()];
    for (const friend of friends) {
      await follow(me, friend);
      await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/endorse`, me.token);
    }
    const first = await kith.request("GET", "/api/v1/endorsements?limit=2", { token: me.token });
    const body = (await first.json()) as { id: string }[];
    expect(body.map((account) => account.id)).toEqual([friends[2]?.account.id, friends[1]?.account.id]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const rest = await call(kith, "GET", new URL(next as string).pathname + new URL(next as string).search, me.token);
    expect(rest.body.map((account: { id: string }) => account.id)).toEqual([friends[0]?.account.id]);
  });

  it("a profile hiding whom it follows shows no endorsements to others, and a blocked viewer sees none", async () => {
    const [owner, friend, viewer] = [await fresh(), await fresh(), await fresh()];
    await follow(owner, friend);
    await call(kith, "POST", `/api/v1/accounts/${friend.account.id}/endorse`, owner.token);
    expect((await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/endorsements`, viewer.token)).body).toHaveLength(1);
    await call(kith, "POST", `/api/v1/accounts/${viewer.account.id}/block`, owner.token);
    expect((await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/endorsements`, viewer.token)).body).toEqual([]);
    expect((await call(kith, "PATCH", "/api/v1/accounts/update_credentials", owner.token, { hide_collections: true })).status).toBe(200);
    expect((await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/endorsements`)).body).toEqual([]);
    expect((await call(kith, "GET", `/api/v1/accounts/${owner.account.id}/endorsements`, owner.token)).body).toHaveLength(1);
  });

  describe("without a token", () => {
    it("answers 401 to the caller's routes", async () => {
      const target = await fresh();
      for (const path of ["endorse", "unendorse", "pin", "unpin"]) {
        expect((await call(kith, "POST", `/api/v1/accounts/${target.account.id}/${path}`)).status).toBe(401);
      }
      expect((await call(kith, "GET", "/api/v1/endorsements")).status).toBe(401);
    });
  });
});
