import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";

interface Tag {
  id: string;
  name: string;
  url: string;
  history: { day: string; uses: string; accounts: string }[];
  following?: boolean;
}

describeOnEngines("hashtags and followed tags", (engine) => {
  let kith: TestKith;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    kith = await engine.testKith();
    alice = await kith.createUser("tagalice");
    bob = await kith.createUser("tagbob");
  });
  afterAll(() => kith.close());

  async function post(user: TestUser, status: string, visibility = "public"): Promise<void> {
    expect((await kith.request("POST", "/api/v1/statuses", { token: user.token, json: { status, visibility } })).status).toBe(200);
  }

  it("shows a tag with a week of history counted from public posts", async () => {
    await post(alice, "#Gardening today");
    await post(bob, "more #gardening");
    await post(bob, "and #gardening again");
    await post(bob, "quiet #gardening", "private");
    const response = await kith.request("GET", "/api/v1/tags/Gardening");
    expect(response.status).toBe(200);
    const tag = (await response.json()) as Tag;
    expect(tag.url).toMatch(/\/tags\/gardening$/);
    expect(tag.history).toHaveLength(7);
    expect(tag.history[0]).toMatchObject({ uses: "3", accounts: "2" });
    expect(Number(tag.history[0]?.day) % 86_400).toBe(0);
    expect(tag.following).toBeUndefined();
    const signedIn = (await (await kith.request("GET", "/api/v1/tags/gardening", { token: alice.token })).json()) as Tag;
    expect(signedIn.following).toBe(false);
    expect((await kith.request("GET", "/api/v1/tags/neverused")).status).toBe(404);
  });

  it("follows and unfollows tags, lists them newest first with Link pagination", async () => {
    const user = await kith.createUser("tagfollower");
    for (const name of ["alpha", "Beta", "gamma"]) {
      const response = await kith.request("POST", `/api/v1/tags/${name}/follow`, { token: user.token });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ name, following: true });
    }
    expect((await kith.request("POST", "/api/v1/tags/alpha/follow", { token: user.token })).status).toBe(200);
    const first = await kith.request("GET", "/api/v1/followed_tags?limit=2", { token: user.token });
    expect(((await first.json()) as Tag[]).map((t) => t.name)).toEqual(["gamma", "Beta"]);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
    expect(next).toBeDefined();
    const second = await kith.request("GET", new URL(next as string).pathname + new URL(next as string).search, { token: user.token });
    expect(((await second.json()) as Tag[]).map((t) => t.name)).toEqual(["alpha"]);

    const unfollowed = await kith.request("POST", "/api/v1/tags/beta/unfollow", { token: user.token });
    expect(await unfollowed.json()).toMatchObject({ following: false });
    expect(
      ((await (await kith.request("GET", "/api/v1/followed_tags", { token: user.token })).json()) as Tag[]).map((t) => t.name),
    ).toEqual(["gamma", "alpha"]);
  });

  it("names the local readers a post reaches through followed tags", async () => {
    const reader = await kith.createUser("tagreader");
    await kith.request("POST", "/api/v1/tags/knitting/follow", { token: reader.token });
    await kith.request("POST", "/api/v1/tags/knitting/follow", { token: bob.token });
    const response = await kith.request("POST", "/api/v1/statuses", { token: bob.token, json: { status: "new #Knitting pattern" } });
    const { id } = (await response.json()) as { id: string };
    expect(await kith.services.tags.followersOfStatusTags(id)).toEqual([reader.account.id]);
  });

  it("refuses guests, invalid names and unknown tags", async () => {
    expect((await kith.request("POST", "/api/v1/tags/x/follow")).status).toBe(401);
    expect((await kith.request("GET", "/api/v1/followed_tags")).status).toBe(401);
    expect((await kith.request("POST", "/api/v1/tags/1234/follow", { token: alice.token })).status).toBe(422);
    expect((await kith.request("POST", "/api/v1/tags/no%20space/follow", { token: alice.token })).status).toBe(422);
    expect((await kith.request("POST", "/api/v1/tags/unknowntag/unfollow", { token: alice.token })).status).toBe(404);
  });
});
