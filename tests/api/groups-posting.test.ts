/**
 * Posting in a group (`POST /api/v1/statuses` with `group_id`): members
 * post, nobody else does; a reply stays in its parent's group; the group
 * counts its statuses; a secret group's statuses are hidden from all but
 * the author and the members they mention.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup, type GroupJson } from "../support/groups.js";

const MISSING_GROUP = "gr_00000000000000000000000000";

describeOnEngines("posting in a group", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let open: GroupJson;
  let other: GroupJson;

  const post = (user: TestUser | undefined, json: Record<string, unknown>) =>
    call(kith, "POST", "/api/v1/statuses", user?.token, json);
  const statusesCount = async (groupId: string, user: TestUser) =>
    (await call(kith, "GET", `/api/v1/groups/${groupId}`, user.token)).body.statuses_count as number;

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("powner");
    member = await kith.createUser("pmember");
    stranger = await kith.createUser("pstranger");
    open = await createGroup(kith, owner.token, { join_mode: "OPEN" });
    other = await createGroup(kith, owner.token, { join_mode: "OPEN" });
    expect((await call(kith, "POST", `/api/v1/groups/${open.id}/join`, member.token)).status).toBe(200);
  });
  afterAll(async () => {
    await kith.close();
  });

  it("lets a member post in the group and counts the status there", async () => {
    const before = await statusesCount(open.id, owner);
    const posted = await post(member, { status: "hello group", group_id: open.id });
    expect(posted.status).toBe(200);
    expect(posted.body).toMatchObject({ content: expect.stringContaining("hello group"), visibility: "public" });
    expect(await statusesCount(open.id, owner)).toBe(before + 1);
  });

  it("keeps a reply in its parent's group, named or not, and counts it", async () => {
    const root = await post(owner, { status: "root", group_id: open.id });
    const before = await statusesCount(open.id, owner);
    expect((await post(member, { status: "named", in_reply_to_id: root.body.id, group_id: open.id })).status).toBe(200);
    expect((await post(member, { status: "inherited", in_reply_to_id: root.body.id })).status).toBe(200);
    expect(await statusesCount(open.id, owner)).toBe(before + 2);
  });

  it("refuses a reply into another group, and a group status replying outside any group", async () => {
    const root = await post(owner, { status: "root", group_id: open.id });
    const across = await post(owner, { status: "across", in_reply_to_id: root.body.id, group_id: other.id });
    expect(across.status).toBe(422);
    expect(across.body.code).toBe("group.reply_outside_group");
    const plain = await post(owner, { status: "not in a group" });
    const into = await post(owner, { status: "into", in_reply_to_id: plain.body.id, group_id: open.id });
    expect(into.status).toBe(422);
    expect(into.body.code).toBe("group.reply_outside_group");
    // An ordinary reply to an ordinary status is no group's business.
    expect((await post(member, { status: "plain reply", in_reply_to_id: plain.body.id })).status).toBe(200);
  });

  it("refuses a non-member, and a non-member's reply that would land in the group", async () => {
    const refused = await post(stranger, { status: "let me in", group_id: open.id });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe("group.members_only_posting");
    const root = await post(owner, { status: "root", group_id: open.id });
    const reply = await post(stranger, { status: "replying", in_reply_to_id: root.body.id });
    expect(reply.status).toBe(403);
    expect(reply.body.code).toBe("group.members_only_posting");
  });

  it("refuses a banned member and a removed one", async () => {
    const banned = await kith.createUser("pbanned");
    const removed = await kith.createUser("premoved");
    for (const user of [banned, removed]) await call(kith, "POST", `/api/v1/groups/${open.id}/join`, user.token);
    expect((await post(banned, { status: "before", group_id: open.id })).status).toBe(200);
    expect((await call(kith, "POST", `/api/v1/groups/${open.id}/bans/${banned.account.id}`, owner.token)).status).toBe(200);
    expect((await call(kith, "DELETE", `/api/v1/groups/${open.id}/members/${removed.account.id}`, owner.token)).status).toBe(200);
    const bannedPost = await post(banned, { status: "after", group_id: open.id });
    expect(bannedPost.status).toBe(403);
    expect(bannedPost.body.code).toBe("group.banned");
    const removedPost = await post(removed, { status: "after", group_id: open.id });
    expect(removedPost.status).toBe(403);
    expect(removedPost.body.code).toBe("group.members_only_posting");
  });

  it("answers 404 for a group that does not exist and for a secret group to a non-member", async () => {
    const missing = await post(member, { status: "nowhere", group_id: MISSING_GROUP });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("group.not_found");
    const secret = await createGroup(kith, owner.token, { secret: true });
    const hidden = await post(stranger, { status: "knock", group_id: secret.id });
    expect(hidden.status).toBe(404);
    expect(hidden.body.code).toBe("group.not_found");
  });

  it("refuses bad input and a guest", async () => {
    expect((await post(undefined, { status: "guest", group_id: open.id })).status).toBe(401);
    const tooLong = await post(member, { status: "long id", group_id: "g".repeat(65) });
    expect([400, 422]).toContain(tooLong.status);
    expect(tooLong.body.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: "body.group_id" })]));
    const wrongType = await post(member, { status: "object id", group_id: { id: open.id } });
    expect([400, 422]).toContain(wrongType.status);
    expect(await statusesCount(open.id, owner)).toBeGreaterThan(0);
  });

  it("posts a secret group's statuses hidden, mentioning members only", async () => {
    const secret = await createGroup(kith, owner.token, { secret: true, join_mode: "INVITE_ONLY" });
    await call(kith, "POST", `/api/v1/groups/${secret.id}/invitations`, owner.token, { account_id: member.account.id });
    expect((await call(kith, "POST", `/api/v1/groups/${secret.id}/join`, member.token)).status).toBe(200);
    const posted = await post(owner, { status: "for members", visibility: "public", group_id: secret.id });
    expect(posted.status).toBe(200);
    expect(posted.body.visibility).toBe("direct");
    const mentioning = await post(owner, { status: `hi @${stranger.account.username}`, group_id: secret.id });
    expect(mentioning.status).toBe(422);
    expect(mentioning.body.code).toBe("group.mention_outside_secret_group");
    expect((await post(owner, { status: `hi @${member.account.username}`, group_id: secret.id })).status).toBe(200);
    expect(await statusesCount(secret.id, owner)).toBe(2);
    // An edit may not let a stranger in by a mention either.
    const edited = await call(kith, "PUT", `/api/v1/statuses/${posted.body.id}`, owner.token, { status: `now @${stranger.account.username}` });
    expect(edited.status).toBe(422);
    expect(edited.body.code).toBe("group.mention_outside_secret_group");
    expect((await call(kith, "GET", `/api/v1/statuses/${posted.body.id}`, stranger.token)).status).toBe(404);
    const fine = await call(kith, "PUT", `/api/v1/statuses/${posted.body.id}`, owner.token, { status: `now @${member.account.username}` });
    expect(fine.status).toBe(200);
  });

  it("fixes a group's secrecy once it has statuses", async () => {
    const group = await createGroup(kith, owner.token, { join_mode: "OPEN" });
    const patch = (secret: boolean) => call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { secret });
    expect((await patch(true)).status).toBe(200);
    expect((await patch(false)).status).toBe(200);
    await post(owner, { status: "seen by all", group_id: group.id });
    const refused = await patch(true);
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe("group.secrecy_fixed");
    expect((await call(kith, "GET", `/api/v1/groups/${group.id}`, stranger.token)).body.secret).toBe(false);
    expect((await patch(false)).status).toBe(200);
  });

  it("stops counting a deleted status", async () => {
    const posted = await post(member, { status: "short-lived", group_id: open.id });
    const before = await statusesCount(open.id, owner);
    expect((await call(kith, "DELETE", `/api/v1/statuses/${posted.body.id}`, member.token)).status).toBe(200);
    await expect.poll(() => statusesCount(open.id, owner)).toBe(before - 1);
  });
});
