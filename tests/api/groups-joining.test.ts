/** Joining a group by each join mode, join requests, invitations, entry questions and join tokens, and leaving. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { type GroupJson, call, createGroup } from "../support/groups.js";

describeOnEngines("joining groups", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`jn${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("jowner");
  });
  afterAll(() => kith.close());

  const join = (group: { id: string }, user: TestUser | undefined, json: unknown = {}) =>
    call(kith, "POST", `/api/v1/groups/${group.id}/join`, user?.token, json);
  const groupAs = async (group: { id: string }, user: TestUser): Promise<GroupJson> =>
    (await call(kith, "GET", `/api/v1/groups/${group.id}`, user.token)).body;

  /** The user's notifications of one type, newest first. */
  async function notificationsOf(user: TestUser, type: string) {
    const response = await call(kith, "GET", `/api/v1/notifications?types[]=${type}`, user.token);
    expect(response.status).toBe(200);
    return response.body as { type: string; account: { id: string }; group: { id: string } | null }[];
  }

  describe("OPEN", () => {
    it("joins at once, with the group's Member role; leaving ends it", async () => {
      const group = await createGroup(kith, owner.token);
      const user = await freshUser();
      const joined = await join(group, user);
      expect(joined.status).toBe(200);
      expect(joined.body).toMatchObject({ id: group.id, members_count: 2 });
      expect(joined.body.membership).toMatchObject({ member: true, requested: false });
      expect(joined.body.membership.roles.map((role: { name: string }) => role.name)).toEqual(["Member"]);

      const again = await join(group, user);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("group.already_member");

      const left = await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, user.token);
      expect(left.status).toBe(200);
      expect(left.body).toMatchObject({ members_count: 1, membership: { member: false, roles: [] } });
      const leftAgain = await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, user.token);
      expect(leftAgain.status).toBe(409);
      expect(leftAgain.body.code).toBe("group.not_member");
    });

    it("needs authentication to join or leave (401), and a group that exists (404)", async () => {
      const group = await createGroup(kith, owner.token);
      expect((await join(group, undefined)).status).toBe(401);
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/leave`)).status).toBe(401);
      const user = await freshUser();
      expect((await join({ id: "gr_00000000000000000000000000" }, user)).status).toBe(404);
      expect((await join(group, user, { token: "" })).status).toBe(422);
      expect((await join(group, user, { message: 5 })).status).toBe(400);
    });

    it("lets the last owner neither leave nor be left without an owner", async () => {
      const group = await createGroup(kith, owner.token);
      const left = await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, owner.token);
      expect(left.status).toBe(409);
      expect(left.body.code).toBe("group.last_owner");
      expect((await groupAs(group, owner)).membership?.member).toBe(true);
    });
  });

  describe("APPROVAL", () => {
    it("makes a join request that a manager approves; the managers and the requester are told", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const user = await freshUser();
      const asked = await join(group, user, { message: "Let me in, please" });
      expect(asked.status).toBe(200);
      expect(asked.body.membership).toMatchObject({ member: false, requested: true });
      expect(asked.body.members_count).toBe(1);
      // Asking again while the request waits changes nothing.
      expect((await join(group, user, { message: "again" })).body.membership.requested).toBe(true);

      const told = await notificationsOf(owner, "group.join_request");
      expect(told.filter((notice) => notice.account.id === user.account.id && notice.group?.id === group.id)).toHaveLength(1);

      const requests = await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token);
      expect(requests.status).toBe(200);
      expect(requests.body).toEqual([
        {
          id: expect.stringMatching(/^jr_/),
          account: expect.objectContaining({ id: user.account.id }),
          message: "Let me in, please",
          status: "pending",
          created_at: expect.any(String),
          decided_at: null,
        },
      ]);
      const requestId = requests.body[0].id;
      const approved = await call(kith, "POST", `/api/v1/groups/${group.id}/join_requests/${requestId}/approve`, owner.token);
      expect(approved.status).toBe(200);
      expect(approved.body).toMatchObject({ id: requestId, status: "approved", decided_at: expect.any(String) });
      expect((await groupAs(group, user)).membership).toMatchObject({ member: true, requested: false });

      // Approving twice, or rejecting what was approved, is refused.
      for (const action of ["approve", "reject"]) {
        const twice = await call(kith, "POST", `/api/v1/groups/${group.id}/join_requests/${requestId}/${action}`, owner.token);
        expect(twice.status).toBe(409);
        expect(twice.body.code).toBe("group.join_request_decided");
      }
      const approvedNotice = await notificationsOf(user, "group.join_approved");
      expect(approvedNotice).toMatchObject([{ account: { id: owner.account.id }, group: { id: group.id } }]);
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests?status=approved`, owner.token)).body).toHaveLength(1);
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token)).body).toEqual([]);
    });

    it("tells a rejected requester; the requester may ask again, or withdraw by leaving", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const user = await freshUser();
      await join(group, user);
      const [request] = (await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token)).body;
      const rejected = await call(kith, "POST", `/api/v1/groups/${group.id}/join_requests/${request.id}/reject`, owner.token);
      expect(rejected.body).toMatchObject({ status: "rejected" });
      expect((await groupAs(group, user)).membership).toMatchObject({ member: false, requested: false });
      expect(await notificationsOf(user, "group.join_rejected")).toMatchObject([{ group: { id: group.id } }]);
      const twice = await call(kith, "POST", `/api/v1/groups/${group.id}/join_requests/${request.id}/approve`, owner.token);
      expect(twice.status).toBe(409);

      expect((await join(group, user)).body.membership.requested).toBe(true);
      const withdrawn = await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, user.token);
      expect(withdrawn.status).toBe(200);
      expect(withdrawn.body.membership.requested).toBe(false);
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token)).body).toEqual([]);
    });

    it("lets only GroupMembers.Manage holders of the group decide (401, 403), and answers 404 for an unknown request", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "APPROVAL" });
      const requester = await freshUser();
      await join(group, requester);
      const [request] = (await call(kith, "GET", `/api/v1/groups/${group.id}/join_requests`, owner.token)).body;
      const member = await freshUser();
      const elsewhere = await freshUser();
      await createGroup(kith, elsewhere.token);
      await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { join_mode: "OPEN" });
      await join(group, member);
      const base = `/api/v1/groups/${group.id}/join_requests`;
      for (const [method, path] of [
        ["GET", base],
        ["POST", `${base}/${request.id}/approve`],
        ["POST", `${base}/${request.id}/reject`],
      ] as const) {
        expect((await call(kith, method, path)).status).toBe(401);
        for (const user of [requester, member, elsewhere]) expect((await call(kith, method, path, user.token)).status).toBe(403);
      }
      const unknown = await call(kith, "POST", `${base}/jr_00000000000000000000000000/approve`, owner.token);
      expect(unknown.status).toBe(404);
      expect(unknown.body.code).toBe("group.join_request_not_found");
      expect((await call(kith, "GET", `${base}?status=maybe`, owner.token)).status).toBe(422);
    });
  });

  describe("INVITE_ONLY and invitations", () => {
    it("refuses a join without an invitation; an invitation is accepted by joining or by accepting it", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "INVITE_ONLY" });
      const user = await freshUser();
      const refused = await join(group, user);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("group.invitation_required");

      const invited = await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: user.account.id });
      expect(invited.status).toBe(200);
      expect(invited.body).toMatchObject({
        id: expect.stringMatching(/^gi_/),
        group: { id: group.id },
        account: { id: user.account.id },
        invited_by: { id: owner.account.id },
        status: "pending",
        answered_at: null,
      });
      expect(await notificationsOf(user, "group.invitation")).toMatchObject([
        { account: { id: owner.account.id }, group: { id: group.id, membership: { invited: true } } },
      ]);
      expect((await groupAs(group, user)).membership?.invited).toBe(true);
      // Joining with a pending invitation accepts it.
      const joined = await join(group, user);
      expect(joined.status).toBe(200);
      expect(joined.body.membership).toMatchObject({ member: true, invited: false });
      expect((await call(kith, "GET", "/api/v1/group_invitations", user.token)).body).toEqual([]);

      const other = await freshUser();
      const second = await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: other.account.id });
      const mine = await call(kith, "GET", "/api/v1/group_invitations", other.token);
      expect(mine.body.map((invitation: { id: string }) => invitation.id)).toEqual([second.body.id]);
      const accepted = await call(kith, "POST", `/api/v1/group_invitations/${second.body.id}/accept`, other.token);
      expect(accepted.status).toBe(200);
      expect(accepted.body).toMatchObject({ id: group.id, members_count: 3, membership: { member: true } });
      const again = await call(kith, "POST", `/api/v1/group_invitations/${second.body.id}/accept`, other.token);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe("group.invitation_answered");
    });

    it("refuses an invitation accepted or declined by anyone but the invitee (404)", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "INVITE_ONLY" });
      const invitee = await freshUser();
      const intruder = await freshUser();
      const invitation = (await call(kith, "POST", `/api/v1/groups/${group.id}/invitations`, owner.token, { account_id: invitee.account.id })).body;
      for (const action of ["accept", "decline"]) {
        const refused = await call(kith, "POST", `/api/v1/group_invitations/${invitation.id}/${action}`, intruder.token);
        expect(refused.status).toBe(404);
        expect(refused.body.code).toBe("group.invitation_not_found");
        expect((await call(kith, "POST", `/api/v1/group_invitations/${invitation.id}/${action}`)).status).toBe(401);
      }
      expect((await groupAs(group, intruder)).membership?.member).toBe(false);
      const declined = await call(kith, "POST", `/api/v1/group_invitations/${invitation.id}/decline`, invitee.token);
      expect(declined).toEqual({ status: 200, body: {} });
      expect((await call(kith, "POST", `/api/v1/group_invitations/${invitation.id}/accept`, invitee.token)).status).toBe(409);
      expect((await join(group, invitee)).status).toBe(403);
    });

    it("refuses inviting a member, inviting twice, an unknown account; lists and withdraws invitations", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "INVITE_ONLY" });
      const invitee = await freshUser();
      const path = `/api/v1/groups/${group.id}/invitations`;
      const member = await call(kith, "POST", path, owner.token, { account_id: owner.account.id });
      expect(member.status).toBe(409);
      expect(member.body.code).toBe("group.already_member");
      const first = await call(kith, "POST", path, owner.token, { account_id: invitee.account.id });
      const twice = await call(kith, "POST", path, owner.token, { account_id: invitee.account.id });
      expect(twice.status).toBe(409);
      expect(twice.body.code).toBe("group.already_invited");
      expect((await call(kith, "POST", path, owner.token, { account_id: "us_00000000000000000000000000" })).status).toBe(404);
      expect((await call(kith, "POST", path, owner.token, {})).status).toBe(400);

      expect((await call(kith, "GET", path, owner.token)).body.map((invitation: { id: string }) => invitation.id)).toEqual([first.body.id]);
      expect((await call(kith, "DELETE", `${path}/${first.body.id}`, owner.token)).status).toBe(200);
      expect((await call(kith, "DELETE", `${path}/${first.body.id}`, owner.token)).status).toBe(404);
      expect((await call(kith, "GET", path, owner.token)).body).toEqual([]);
      expect((await call(kith, "POST", `/api/v1/group_invitations/${first.body.id}/accept`, invitee.token)).status).toBe(404);
    });

    it("lets only GroupMembers.Invite holders of the group invite (401, 403); a moderator may", async () => {
      const group = await createGroup(kith, owner.token);
      const member = await freshUser();
      await join(group, member);
      const target = await freshUser();
      const path = `/api/v1/groups/${group.id}/invitations`;
      expect((await call(kith, "POST", path, undefined, { account_id: target.account.id })).status).toBe(401);
      expect((await call(kith, "POST", path, member.token, { account_id: target.account.id })).status).toBe(403);
      expect((await call(kith, "GET", path, member.token)).status).toBe(403);
      expect((await call(kith, "DELETE", `${path}/gi_00000000000000000000000000`, member.token)).status).toBe(403);

      const roles = (await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${group.id}`, owner.token)).body;
      const moderator = roles.find((role: { name: string }) => role.name === "Moderator");
      await call(kith, "POST", `/api/v1/admin/rbac/actors/${member.account.id}/roles?scope=${group.id}`, owner.token, { roleId: moderator.roleId });
      expect((await call(kith, "POST", path, member.token, { account_id: target.account.id })).status).toBe(200);
    });
  });

  describe("QUESTIONS and join tokens", () => {
    const questions = [
      { question: "Why join?", kind: "text" },
      { question: "Favourite colour?", kind: "single_choice", required: false, options: ["red", "blue"] },
      { question: "The rules", kind: "multiple_choice", options: ["I accept", "I read them"], expected: ["I accept"] },
    ];

    async function questionsGroup() {
      const group = await createGroup(kith, owner.token, { join_mode: "QUESTIONS" });
      const put = await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, owner.token, { questions });
      expect(put.status).toBe(200);
      const [why, colour, rules] = put.body.map((question: { id: string }) => question.id) as [string, string, string];
      return { group, why, colour, rules };
    }

    const answer = (groupId: string, user: TestUser | undefined, answers: unknown) =>
      call(kith, "POST", `/api/v1/groups/${groupId}/questions/answers`, user?.token, { answers });

    it("refuses a join without a token; answers give a token that lets the applicant in once", async () => {
      const { group, why, rules } = await questionsGroup();
      const user = await freshUser();
      const without = await join(group, user);
      expect(without.status).toBe(422);
      expect(without.body.code).toBe("group.join_token_required");

      const answered = await answer(group.id, user, [
        { question_id: why, text: "To learn" },
        { question_id: rules, choices: ["I accept", "I read them"] },
      ]);
      expect(answered.status).toBe(200);
      expect(answered.body).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), expires_at: expect.any(String) });
      const joined = await join(group, user, { token: answered.body.token });
      expect(joined.status).toBe(200);
      expect(joined.body.membership.member).toBe(true);

      await call(kith, "POST", `/api/v1/groups/${group.id}/leave`, user.token);
      const reused = await join(group, user, { token: answered.body.token });
      expect(reused.status).toBe(409);
      expect(reused.body.code).toBe("group.join_token_used");
    });

    it("answers 422 with a detail a question for answers that do not let the applicant in", async () => {
      const { group, why, colour, rules } = await questionsGroup();
      const user = await freshUser();
      const refused = await answer(group.id, user, [
        { question_id: colour, choices: ["green"] },
        { question_id: rules, choices: ["I read them"] },
        { question_id: "gq_00000000000000000000000000", text: "?" },
      ]);
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("group.answers_invalid");
      const byField = Object.fromEntries(refused.body.details.map((detail: { field: string; code: string }) => [detail.field, detail.code]));
      expect(byField).toEqual({
        [`answers.${why}`]: "required",
        [`answers.${colour}`]: "not_an_option",
        [`answers.${rules}`]: "unexpected",
        "answers.gq_00000000000000000000000000": "unknown_question",
      });
      const wrongKind = await answer(group.id, user, [
        { question_id: why, choices: ["To learn"] },
        { question_id: colour, choices: ["red", "blue"] },
        { question_id: rules, text: "I accept" },
      ]);
      expect(wrongKind.body.details.map((detail: { code: string }) => detail.code).sort()).toEqual(["one_choice", "wrong_kind", "wrong_kind"]);
      expect((await answer(group.id, user, "yes")).status).toBe(400);
      expect((await answer(group.id, undefined, [])).status).toBe(401);
    });

    it("binds a token to its applicant and its group", async () => {
      const { group, why, rules } = await questionsGroup();
      const other = await questionsGroup();
      const applicant = await freshUser();
      const thief = await freshUser();
      const token = (await answer(group.id, applicant, [
        { question_id: why, text: "Hello" },
        { question_id: rules, choices: ["I accept"] },
      ])).body.token;
      for (const [target, user] of [[group, thief], [other.group, applicant]] as const) {
        const refused = await join(target, user, { token });
        expect(refused.status).toBe(422);
        expect(refused.body.code).toBe("group.join_token_invalid");
      }
      expect((await join(group, applicant, { token: "not-a-token" })).body.code).toBe("group.join_token_invalid");
      // The refusals did not use it up.
      expect((await join(group, applicant, { token })).status).toBe(200);
    });

    it("lets a token expire", async () => {
      const { group, why, rules } = await questionsGroup();
      const user = await freshUser();
      const token = (await answer(group.id, user, [
        { question_id: why, text: "Hello" },
        { question_id: rules, choices: ["I accept"] },
      ])).body.token;
      kith.clock.advance(11 * 60 * 1000);
      const expired = await join(group, user, { token });
      expect(expired.status).toBe(422);
      expect(expired.body.code).toBe("group.join_token_expired");
    });

    it("lets one of two joins with the same token at once in, and refuses the other", async () => {
      const { group, why, rules } = await questionsGroup();
      const user = await freshUser();
      const token = (await answer(group.id, user, [
        { question_id: why, text: "Hello" },
        { question_id: rules, choices: ["I accept"] },
      ])).body.token;
      const outcomes = await Promise.all([join(group, user, { token }), join(group, user, { token })]);
      const statuses = outcomes.map((outcome) => outcome.status).sort();
      expect(statuses).toEqual([200, 409]);
      expect((await groupAs(group, user)).members_count).toBe(2);
    });

    it("refuses answers where no questions are asked, and from a member", async () => {
      const open = await createGroup(kith, owner.token);
      const user = await freshUser();
      const notAsked = await answer(open.id, user, []);
      expect(notAsked.status).toBe(409);
      expect(notAsked.body.code).toBe("group.not_questions_mode");
      const { group } = await questionsGroup();
      const member = await answer(group.id, owner, []);
      expect(member.status).toBe(409);
      expect(member.body.code).toBe("group.already_member");
    });
  });
});
