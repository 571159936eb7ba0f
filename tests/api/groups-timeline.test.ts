/**
 * `GET /api/v1/timelines/group/{groupId}`: the statuses posted in a group,
 * newest first, paged as Mastodon pages timelines, each shown as the caller
 * may see it; a secret group's timeline is its members' only.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup, type GroupJson } from "../support/groups.js";

const MISSING_GROUP = "gr_00000000000000000000000000";

describeOnEngines("group timelines", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let open: GroupJson;
  const posted: string[] = [];

  const post = async (user: TestUser, json: Record<string, unknown>): Promise<string> => {
    const answer = await call(kith, "POST", "/api/v1/statuses", user.token, json);
    expect(answer.status).toBe(200);
    return answer.body.id as string;
  };
  const timeline = async (groupId: string, token?: string, query = "") => {
    const response = await kith.request("GET", `/api/v1/timelines/group/${groupId}${query}`, token ? { token } : {});
    const body = await response.json();
    return { status: response.status, body, ids: Array.isArray(body) ? body.map((status: { id: string }) => status.id) : [], link: response.headers.get("link") };
  };

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("towner");
    member = await kith.createUser("tmember");
    stranger = await kith.createUser("tstranger");
    open = await createGroup(kith, owner.token, { join_mode: "OPEN" });
    expect((await call(kith, "POST", `/api/v1/groups/${open.id}/join`, member.token)).status).toBe(200);
    posted.push(await post(owner, { status: "first", group_id: open.id }));
    await post(owner, { status: "outside any group" });
    posted.push(await post(member, { status: "second", group_id: open.id }));
    posted.push(await post(member, { status: "a reply", in_reply_to_id: posted[0] }));
    posted.push(await post(owner, { status: "fourth", group_id: open.id }));
  });
  afterAll(async () => {
    await kith.close();
  });

  it("lists the group's statuses newest first, to guests too, and counts them on the group", async () => {
    const read = await timeline(open.id);
    expect(read.status).toBe(200);
    expect(read.ids).toEqual([...posted].reverse());
    expect(read.body[0]).toMatchObject({ id: posted[3], content: expect.stringContaining("fourth"), account: { id: owner.account.id } });
    expect((await call(kith, "GET", `/api/v1/groups/${open.id}`)).body.statuses_count).toBe(posted.length);
  });

  it("pages with max_id, since_id, min_id, limit and a Link header", async () => {
    const first = await timeline(open.id, member.token, "?limit=2");
    expect(first.ids).toEqual([posted[3], posted[2]]);
    const next = first.link?.match(/<([^>]+)>; rel="next"/)?.[1];
    expect(next).toContain(`max_id=${posted[2]}`);
    const second = await timeline(open.id, member.token, new URL(next ?? "").search);
    expect(second.ids).toEqual([posted[1], posted[0]]);
    expect((await timeline(open.id, member.token, `?since_id=${posted[1]}&limit=1`)).ids).toEqual([posted[3]]);
    expect((await timeline(open.id, member.token, `?min_id=${posted[1]}&limit=1`)).ids).toEqual([posted[2]]);
    expect((await timeline(open.id, member.token, `?min_id=${posted[3]}`)).ids).toEqual([]);
  });

  it("shows each status as the caller may see it", async () => {
    const followersOnly = await post(member, { status: "for my followers", visibility: "private", group_id: open.id });
    expect((await timeline(open.id, stranger.token)).ids).not.toContain(followersOnly);
    expect((await timeline(open.id, member.token)).ids[0]).toBe(followersOnly);
    expect((await call(kith, "DELETE", `/api/v1/statuses/${followersOnly}`, member.token)).status).toBe(200);
    await expect.poll(async () => (await timeline(open.id, member.token)).ids).toEqual([...posted].reverse());
  });

  it("is a secret group's members' only", async () => {
    const secret = await createGroup(kith, owner.token, { secret: true, join_mode: "INVITE_ONLY" });
    await call(kith, "POST", `/api/v1/groups/${secret.id}/invitations`, owner.token, { account_id: member.account.id });
    expect((await call(kith, "POST", `/api/v1/groups/${secret.id}/join`, member.token)).status).toBe(200);
    const hidden = await post(owner, { status: "members only", group_id: secret.id });
    expect((await timeline(secret.id, member.token)).ids).toEqual([hidden]);
    for (const token of [undefined, stranger.token]) {
      const refused = await timeline(secret.id, token);
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe("group.not_found");
    }
    expect((await call(kith, "POST", `/api/v1/groups/${secret.id}/leave`, member.token)).status).toBe(200);
    expect((await timeline(secret.id, member.token)).status).toBe(404);
    expect((await call(kith, "GET", `/api/v1/statuses/${hidden}`, member.token)).status).toBe(404);
  });

  it("answers 404 for a group that does not exist, and refuses bad paging", async () => {
    const missing = await timeline(MISSING_GROUP, member.token);
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("group.not_found");
    for (const query of ["?limit=abc", `?max_id=${"x".repeat(500)}`]) {
      const refused = await timeline(open.id, member.token, query);
      expect([400, 422], query).toContain(refused.status);
      expect(refused.body.error, query).toEqual(expect.any(String));
    }
  });
});
