import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { follow, idsOf, post } from "./timelines-fixtures.js";

interface ListJson {
  id: string;
  title: string;
  replies_policy: string;
  exclusive: boolean;
}

describeOnEngines("lists", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const user = (): Promise<TestUser> => kith.createUser(`li${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function createList(owner: TestUser, json: Record<string, unknown> = { title: "Friends" }): Promise<ListJson> {
    const response = await kith.request("POST", "/api/v1/lists", { token: owner.token, json });
    expect(response.status).toBe(200);
    return (await response.json()) as ListJson;
  }

  it("creates, reads, updates and deletes a list", async () => {
    const owner = await user();
    const list = await createList(owner, { title: "Friends", replies_policy: "followed" });
    expect(list).toEqual({ id: expect.stringMatching(/^li_/), title: "Friends", replies_policy: "followed", exclusive: false });
    const updated = await kith.request("PUT", `/api/v1/lists/${list.id}`, {
      token: owner.token,
      form: { title: "Close", exclusive: "true" },
    });
    expect(await updated.json()).toMatchObject({ title: "Close", exclusive: true, replies_policy: "followed" });
    const all = await kith.request("GET", "/api/v1/lists", { token: owner.token });
    expect(((await all.json()) as ListJson[]).map((l) => l.id)).toEqual([list.id]);
    expect((await kith.request("DELETE", `/api/v1/lists/${list.id}`, { token: owner.token })).status).toBe(200);
    expect((await kith.request("GET", `/api/v1/lists/${list.id}`, { token: owner.token })).status).toBe(404);
  });

  it("refuses an empty title and an unknown replies policy", async () => {
    const owner = await user();
    expect((await kith.request("POST", "/api/v1/lists", { token: owner.token, json: { title: "  " } })).status).toBe(422);
    const bad = await kith.request("POST", "/api/v1/lists", { token: owner.token, json: { title: "x", replies_policy: "all" } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);
  });

  it("hides other people's lists as not found, and needs a token", async () => {
    const [owner, other] = [await user(), await user()];
    const list = await createList(owner);
    expect((await kith.request("GET", `/api/v1/lists/${list.id}`, { token: other.token })).status).toBe(404);
    expect((await kith.request("DELETE", `/api/v1/lists/${list.id}`, { token: other.token })).status).toBe(404);
    expect((await kith.request("GET", `/api/v1/timelines/list/${list.id}`, { token: other.token })).status).toBe(404);
    expect((await kith.request("GET", "/api/v1/lists")).status).toBe(401);
  });

  it("adds only followed accounts; lists them; finds the lists holding an account", async () => {
    const [owner, followed, stranger] = [await user(), await user(), await user()];
    await follow(kith, owner.account.id, followed.account.id);
    const list = await createList(owner);
    const refused = await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, {
      token: owner.token,
      json: { account_ids: [stranger.account.id] },
    });
    expect(refused.status).toBe(422);
    const unknown = await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, {
      token: owner.token,
      json: { account_ids: ["us_00000000000000000000000000"] },
    });
    expect(unknown.status).toBe(404);
    const added = await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, {
      token: owner.token,
      form: { "account_ids[]": followed.account.id },
    });
    expect(added.status).toBe(200);
    expect(await idsOf(await kith.request("GET", `/api/v1/lists/${list.id}/accounts`, { token: owner.token }))).toEqual([
      followed.account.id,
    ]);
    const holding = await kith.request("GET", `/api/v1/accounts/${followed.account.id}/lists`, { token: owner.token });
    expect(((await holding.json()) as ListJson[]).map((l) => l.id)).toEqual([list.id]);
    const removed = await kith.request("DELETE", `/api/v1/lists/${list.id}/accounts`, {
      token: owner.token,
      json: { account_ids: [followed.account.id] },
    });
    expect(removed.status).toBe(200);
    expect(await idsOf(await kith.request("GET", `/api/v1/lists/${list.id}/accounts?limit=0`, { token: owner.token }))).toEqual([]);
  });

  it("the list timeline shows members' posts with replies as the policy says", async () => {
    const [owner, member, other, outsider] = [await user(), await user(), await user(), await user()];
    await follow(kith, owner.account.id, member.account.id);
    await follow(kith, owner.account.id, other.account.id);
    const list = await createList(owner, { title: "Members", replies_policy: "list" });
    await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, { token: owner.token, json: { account_ids: [member.account.id] } });
    const top = await post(kith, member.account.id);
    const toOther = await post(kith, member.account.id, { inReplyTo: { id: top, accountId: other.account.id } });
    const self = await post(kith, member.account.id, { inReplyTo: { id: top, accountId: member.account.id } });
    await post(kith, other.account.id);
    await post(kith, outsider.account.id);
    const timeline = await kith.request("GET", `/api/v1/timelines/list/${list.id}`, { token: owner.token });
    expect(await idsOf(timeline)).toEqual([self, top]);
    await kith.request("PUT", `/api/v1/lists/${list.id}`, { token: owner.token, json: { replies_policy: "followed" } });
    expect(await idsOf(await kith.request("GET", `/api/v1/timelines/list/${list.id}`, { token: owner.token }))).toEqual([
      self,
      toOther,
      top,
    ]);
  });

  it("an exclusive list keeps its members' new posts out of home", async () => {
    const [owner, member] = [await user(), await user()];
    await follow(kith, owner.account.id, member.account.id);
    const list = await createList(owner, { title: "Quiet", exclusive: true });
    await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, { token: owner.token, json: { account_ids: [member.account.id] } });
    const id = await post(kith, member.account.id);
    expect(await idsOf(await kith.request("GET", "/api/v1/timelines/home", { token: owner.token }))).not.toContain(id);
    expect(await idsOf(await kith.request("GET", `/api/v1/timelines/list/${list.id}`, { token: owner.token }))).toContain(id);
  });

  it("pages members and the list timeline through Link headers, and refuses a malformed limit", async () => {
    const owner = await user();
    const members = [await user(), await user(), await user()];
    for (const member of members) await follow(kith, owner.account.id, member.account.id);
    const list = await createList(owner);
    await kith.request("POST", `/api/v1/lists/${list.id}/accounts`, {
      token: owner.token,
      json: { account_ids: members.map((m) => m.account.id) },
    });
    const posts: string[] = [];
    for (const member of members) posts.push(await post(kith, member.account.id));

    /** Follows `rel="next"` from `path` until it runs out, collecting the ids of every page. */
    const walk = async (path: string): Promise<string[][]> => {
      const pages: string[][] = [];
      let next: string | undefined = path;
      while (next && pages.length < 5) {
        const response = await kith.request("GET", next, { token: owner.token });
        expect(response.status).toBe(200);
        const link = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
        const ids = await idsOf(response);
        if (ids.length > 0) pages.push(ids);
        next = link && ids.length > 0 ? new URL(link).pathname + new URL(link).search : undefined;
      }
      return pages;
    };
    const memberPages = await walk(`/api/v1/lists/${list.id}/accounts?limit=2`);
    expect(memberPages.map((page) => page.length)).toEqual([2, 1]);
    expect(memberPages.flat().sort()).toEqual(members.map((m) => m.account.id).sort());
    const timelinePages = await walk(`/api/v1/timelines/list/${list.id}?limit=2`);
    expect(timelinePages).toEqual([[posts[2], posts[1]], [posts[0]]]);

    expect((await kith.request("GET", `/api/v1/lists/${list.id}/accounts?limit=many`, { token: owner.token })).status).toBe(400);
    expect((await kith.request("GET", `/api/v1/timelines/list/${list.id}?max_id=${"x".repeat(500)}`, { token: owner.token })).status).toBe(
      422,
    );
  });
});
