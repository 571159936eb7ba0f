/**
 * Featured hashtags: featured from the list or the tag, at most ten, counted
 * from the statuses that use them, suggested from the caller's own use, and
 * shown on the profile.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call } from "../support/groups.js";

describeOnEngines("featured hashtags", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const fresh = () => kith.createUser(`ft${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  const post = async (user: TestUser, status: string, visibility = "public") => {
    const posted = await call(kith, "POST", "/api/v1/statuses", user.token, { status, visibility });
    expect(posted.status).toBe(200);
    return posted.body.id as string;
  };

  it("features a hashtag with the count and day of the caller's public statuses using it", async () => {
    const me = await fresh();
    await post(me, "one #Cats");
    await post(me, "two #cats");
    await post(me, "private #cats", "private");
    const featured = await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: "#Cats" });
    expect(featured.status).toBe(200);
    expect(featured.body).toEqual({
      id: expect.stringMatching(/^ft_/),
      name: "Cats",
      url: `https://kith.test/@${me.account.username}/tagged/cats`,
      statuses_count: 2,
      last_status_at: kith.clock.now().toISOString().slice(0, 10),
    });
    const listed = await call(kith, "GET", "/api/v1/featured_tags", me.token);
    expect(listed.body).toEqual([featured.body]);
    const profile = await call(kith, "GET", `/api/v1/accounts/${me.account.id}/featured_tags`);
    expect(profile.body).toEqual([featured.body]);
    // Featuring it again returns the same one.
    expect((await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: "cats" })).body.id).toBe(featured.body.id);
  });

  it("a status deleted stops counting", async () => {
    const me = await fresh();
    const id = await post(me, "#dogs");
    expect((await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: "dogs" })).body.statuses_count).toBe(1);
    expect((await call(kith, "DELETE", `/api/v1/statuses/${id}`, me.token)).status).toBe(200);
    expect((await call(kith, "GET", "/api/v1/featured_tags", me.token)).body[0]).toMatchObject({ statuses_count: 0, last_status_at: null });
  });

  it("refuses an eleventh hashtag and a name that is not a hashtag, with 422", async () => {
    const me = await fresh();
    for (let i = 0; i < 10; i++)
      expect((await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: `tag${i}x` })).status).toBe(200);
    const eleventh = await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: "onemore" });
    expect(eleventh.status).toBe(422);
    expect(eleventh.body.code).toBe("featured_tag.limit_reached");
    expect((await call(kith, "GET", "/api/v1/featured_tags", me.token)).body).toHaveLength(10);
    const other = await fresh();
    expect((await call(kith, "POST", "/api/v1/featured_tags", other.token, { name: "not a tag!" })).status).toBe(422);
    const missing = await call(kith, "POST", "/api/v1/featured_tags", other.token, {});
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  });

  it("unfeatures by id; another's featured tag or an unknown id is 404", async () => {
    const [me, other] = [await fresh(), await fresh()];
    const featured = await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: "birds" });
    expect((await call(kith, "DELETE", `/api/v1/featured_tags/${featured.body.id}`, other.token)).status).toBe(404);
    expect((await call(kith, "DELETE", `/api/v1/featured_tags/${featured.body.id}`, me.token)).status).toBe(200);
    expect((await call(kith, "DELETE", `/api/v1/featured_tags/${featured.body.id}`, me.token)).status).toBe(404);
    expect((await call(kith, "GET", "/api/v1/featured_tags", me.token)).body).toEqual([]);
  });

  it("features and unfeatures from the tag, which says `featuring`", async () => {
    const me = await fresh();
    const featured = await call(kith, "POST", "/api/v1/tags/Fish/feature", me.token);
    expect(featured.status).toBe(200);
    expect(featured.body).toMatchObject({ name: "Fish", featuring: true, following: false });
    expect((await call(kith, "GET", "/api/v1/tags/fish", me.token)).body.featuring).toBe(true);
    expect((await call(kith, "GET", "/api/v1/featured_tags", me.token)).body.map((tag: { name: string }) => tag.name)).toEqual(["Fish"]);
    const unfeatured = await call(kith, "POST", "/api/v1/tags/fish/unfeature", me.token);
    expect(unfeatured.body.featuring).toBe(false);
    expect((await call(kith, "POST", "/api/v1/tags/nosuchtagyet/unfeature", me.token)).status).toBe(404);
    expect((await call(kith, "POST", "/api/v1/tags/%20/feature", me.token)).status).toBe(422);
  });

  it("suggests the caller's most used hashtags that it does not feature", async () => {
    const me = await fresh();
    await post(me, "#often #seldom");
    await post(me, "#often");
    await post(me, "#featuredone");
    await call(kith, "POST", "/api/v1/featured_tags", me.token, { name: "featuredone" });
    const suggested = await call(kith, "GET", "/api/v1/featured_tags/suggestions", me.token);
    expect(suggested.status).toBe(200);
    expect(suggested.body.map((tag: { name: string }) => tag.name)).toEqual(["often", "seldom"]);
  });

  it("an unknown account's featured tags are 404", async () => {
    expect((await call(kith, "GET", "/api/v1/accounts/us_nobody/featured_tags")).status).toBe(404);
  });

  describe("without a token", () => {
    it("answers 401", async () => {
      expect((await call(kith, "GET", "/api/v1/featured_tags")).status).toBe(401);
      expect((await call(kith, "POST", "/api/v1/featured_tags", undefined, { name: "x" })).status).toBe(401);
      expect((await call(kith, "GET", "/api/v1/featured_tags/suggestions")).status).toBe(401);
      expect((await call(kith, "POST", "/api/v1/tags/x/feature")).status).toBe(401);
    });
  });
});
