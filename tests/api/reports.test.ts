/**
 * Moderation reports: filing (the spec's form), merging into one report a
 * subject, the reporter's own comment, every row of the state table and the
 * refused transitions, assignment eligibility, notes, deletion, scopes
 * (server and group), secret groups, and the aggregated views.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

const ADMIN = "/api/v1/admin/reports";

describeOnEngines("reports", (engine) => {
  let kith: TestKith;
  let admin: TestUser;
  let mod: TestUser;
  let reader: TestUser;
  let groupOwner: TestUser;
  let serial = 0;
  const fresh = (prefix = "ru") => kith.createUser(`${prefix}${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    admin = await kith.createUser("rep_admin", { role: "Admin" });
    mod = await kith.createUser("rep_mod", { role: "Moderator" });
    reader = await kith.createUser("rep_reader");
    await giveGrants(kith, reader.account.id, [{ resource: "Reports", access: ["Read"], scope: "global" }]);
    groupOwner = await kith.createUser("rep_gowner");
  });
  afterAll(() => kith.close());

  const report = (user: TestUser, json: Record<string, unknown>) => call(kith, "POST", "/api/v1/reports", user.token, json);
  const reportUser = (user: TestUser, target: TestUser, comment = "bad") =>
    report(user, { targetType: "user", targetId: target.account.id, comment });
  const act = (user: TestUser, id: string, action: string, json: Record<string, unknown> = {}, scope?: string) =>
    call(kith, "POST", `${ADMIN}/${id}/${action}${scope ? `?scope=${scope}` : ""}`, user.token, json);
  const show = (user: TestUser, id: string, scope?: string) =>
    call(kith, "GET", `${ADMIN}/${id}${scope ? `?scope=${scope}` : ""}`, user.token);
  const post = async (user: TestUser, json: Record<string, unknown>) => {
    const posted = await call(kith, "POST", "/api/v1/statuses", user.token, json);
    expect(posted.status).toBe(200);
    return posted.body.id as string;
  };

  /** A new report on a fresh account; its id. */
  async function newReport(): Promise<string> {
    const filed = await reportUser(await fresh(), await fresh());
    expect(filed.status).toBe(200);
    return filed.body.id;
  }

  /** Gives the user the group's built-in role, as its owner does (the user joins first: roles are held by members). */
  async function giveGroupRole(groupId: string, user: TestUser, roleName: string): Promise<void> {
    expect((await call(kith, "POST", `/api/v1/groups/${groupId}/join`, user.token)).status).toBe(200);
    const roles = await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${groupId}`, groupOwner.token);
    const role = roles.body.find((candidate: { name: string }) => candidate.name === roleName);
    const assigned = await call(kith, "POST", `/api/v1/admin/rbac/actors/${user.account.id}/roles?scope=${groupId}`, groupOwner.token, {
      roleId: role.roleId,
    });
    expect(assigned.status).toBe(200);
  }

  describe("authentication", () => {
    it("answers 401 on every report endpoint without credentials", async () => {
      const id = "rp_0000000000000000000000000a";
      const requests: [string, string][] = [
        ["POST", "/api/v1/reports"],
        ["POST", `/api/v1/reports/${id}/edit-comment`],
        ["GET", ADMIN],
        ["GET", `${ADMIN}/eligible-assignees`],
        ["GET", `${ADMIN}/list`],
        ["GET", `${ADMIN}/reported-groups`],
        ["GET", `${ADMIN}/reported-posts`],
        ["GET", `${ADMIN}/reported-users`],
        ["GET", `${ADMIN}/${id}`],
        ["DELETE", `${ADMIN}/${id}/delete`],
        ...["add-note", "assign", "assign_to_self", "dismiss", "remove-note", "reopen", "resolve", "unassign"].map(
          (action): [string, string] => ["POST", `${ADMIN}/${id}/${action}`],
        ),
      ];
      for (const [method, path] of requests) {
        const response = await call(kith, method, path, undefined, method === "GET" ? undefined : {});
        expect(response.status, `${method} ${path}`).toBe(401);
        expect(response.body.code).toBe("auth.unauthenticated");
      }
    });
  });

  describe("filing", () => {
    it("files a report on an account, shown to its reporter without notes, moderators or other reporters", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      const filed = await reportUser(reporter, target, "spam everywhere");
      expect(filed.status).toBe(200);
      expect(filed.body).toMatchObject({
        id: expect.stringMatching(/^rp_[0-9a-z]{26}$/),
        state: "open",
        targetType: "user",
        targetId: target.account.id,
        merged: false,
        comment: { id: expect.stringMatching(/^rc_/), comment: "spam everywhere", statusIds: [] },
      });
      expect(Object.keys(filed.body)).not.toEqual(expect.arrayContaining(["notes"]));
      for (const hidden of ["notes", "assignedModerator", "comments", "actionTakenBy"]) expect(filed.body).not.toHaveProperty(hidden);
    });

    it("merges a second reporter's report into the subject's open report as a comment", async () => {
      const [first, second, target] = [await fresh(), await fresh(), await fresh()];
      const one = await reportUser(first, target, "first");
      const two = await reportUser(second, target, "second");
      expect(two.status).toBe(200);
      expect(two.body).toMatchObject({ id: one.body.id, merged: true, comment: { comment: "second" } });
      // The second reporter sees only their own comment.
      expect(JSON.stringify(two.body)).not.toContain("first");
      const shown = await show(mod, one.body.id);
      expect(
        shown.body.comments.map((comment: { comment: string; account: { id: string } }) => [comment.account.id, comment.comment]),
      ).toEqual([
        [first.account.id, "first"],
        [second.account.id, "second"],
      ]);
      // The same reporter again rewrites their comment: still one comment each.
      const again = await reportUser(first, target, "first, again");
      expect(again.body).toMatchObject({ id: one.body.id, merged: true, comment: { id: one.body.comment.id, comment: "first, again" } });
      expect((await show(mod, one.body.id)).body.comments).toHaveLength(2);
    });

    it("opens a new report on a subject whose report was resolved, and refuses to reopen the old one beside it", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      const old = await reportUser(reporter, target);
      expect((await act(mod, old.body.id, "resolve")).status).toBe(200);
      const renewed = await reportUser(reporter, target, "again");
      expect(renewed.body).toMatchObject({ merged: false, state: "open" });
      expect(renewed.body.id).not.toBe(old.body.id);
      const reopened = await act(mod, old.body.id, "reopen");
      expect(reopened.status).toBe(409);
      expect(reopened.body.code).toBe("report.target_has_open_report");
    });

    it("reports a status, in no scope when it is not in a group", async () => {
      const [reporter, author] = [await fresh(), await fresh()];
      const statusId = await post(author, { status: "reportable" });
      const filed = await report(reporter, { targetType: "post", targetId: statusId, comment: "rude" });
      expect(filed.status).toBe(200);
      const shown = await show(mod, filed.body.id);
      expect(shown.body).toMatchObject({
        targetType: "post",
        scope: null,
        target: { status: { id: statusId }, account: { id: author.account.id } },
      });
    });

    it("refuses bad bodies, unknown targets and reporting oneself", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      for (const body of [
        {},
        { targetType: "user" },
        { targetType: "planet", targetId: "x" },
        { account_id: target.account.id, targetType: "user", targetId: "x" },
      ]) {
        const refused = await report(reporter, body);
        expect(refused.status, JSON.stringify(body)).toBe(422);
        expect(refused.body.code).toBe("request.validation_failed");
      }
      expect((await report(reporter, { targetType: "user", targetId: target.account.id, comment: 12 })).status).toBe(400);
      expect((await report(reporter, { targetType: "user", targetId: target.account.id, comment: "x".repeat(1001) })).status).toBe(422);
      for (const targetType of ["user", "post", "group"]) {
        const missing = await report(reporter, { targetType, targetId: "zz_0000000000000000000000000a" });
        expect(missing.status).toBe(404);
        expect(missing.body.code).toBe("report.target_not_found");
      }
      const self = await reportUser(reporter, reporter);
      expect(self.status).toBe(422);
      expect(self.body.code).toBe("report.self");
    });

    it("does not let a reporter file a report on a status they may not see", async () => {
      const [reporter, author] = [await fresh(), await fresh()];
      const hidden = await post(author, { status: "for my followers", visibility: "private" });
      const refused = await report(reporter, { targetType: "post", targetId: hidden });
      expect(refused.status).toBe(404);
    });
  });

  describe("the reporter's comment", () => {
    it("lets its author edit it, and nobody else", async () => {
      const [reporter, other, target] = [await fresh(), await fresh(), await fresh()];
      const filed = await reportUser(reporter, target, "before");
      const edited = await call(kith, "POST", `/api/v1/reports/${filed.body.id}/edit-comment`, reporter.token, { comment: "after" });
      expect(edited.status).toBe(200);
      expect(edited.body.comment).toMatchObject({ comment: "after" });
      expect((await show(mod, filed.body.id)).body.comments[0].comment).toBe("after");
      const refused = await call(kith, "POST", `/api/v1/reports/${filed.body.id}/edit-comment`, other.token, { comment: "mine now" });
      expect(refused.status).toBe(404);
      expect(refused.body.code).toBe("report.not_found");
      expect((await show(mod, filed.body.id)).body.comments[0].comment).toBe("after");
      expect((await call(kith, "POST", `/api/v1/reports/${filed.body.id}/edit-comment`, reporter.token, {})).status).toBe(400);
    });

    it("keeps the comment of a resolved report as it was", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      const filed = await reportUser(reporter, target, "before");
      await act(mod, filed.body.id, "dismiss");
      const refused = await call(kith, "POST", `/api/v1/reports/${filed.body.id}/edit-comment`, reporter.token, { comment: "after" });
      expect(refused.status).toBe(409);
      expect(refused.body.code).toBe("report.comment_closed");
    });
  });

  describe("states and transitions", () => {
    it("assigns (under review), assigns null (open), unassigns (open)", async () => {
      const id = await newReport();
      const assigned = await act(admin, id, "assign", { userId: mod.account.id });
      expect(assigned.status).toBe(200);
      expect(assigned.body).toMatchObject({ state: "under_review", assignedModerator: { id: mod.account.id } });
      const nulled = await act(admin, id, "assign", { userId: null });
      expect(nulled.body).toMatchObject({ state: "open", assignedModerator: null });
      await act(admin, id, "assign", { userId: mod.account.id });
      const unassigned = await act(admin, id, "unassign");
      expect(unassigned.body).toMatchObject({ state: "open", assignedModerator: null });
      // Unassigning an open report changes nothing.
      expect((await act(admin, id, "unassign")).body).toMatchObject({ state: "open" });
    });

    it("resolves and dismisses from any state, recording the caller and the time; reopens clearing them", async () => {
      for (const from of ["open", "under_review", "resolved", "dismissed"]) {
        for (const action of ["resolve", "dismiss"]) {
          const id = await newReport();
          if (from === "under_review") await act(admin, id, "assign", { userId: admin.account.id });
          if (from === "resolved" || from === "dismissed") await act(admin, id, from === "resolved" ? "resolve" : "dismiss");
          kith.clock.advance(1000);
          const done = await act(mod, id, action);
          expect(done.status, `${action} from ${from}`).toBe(200);
          expect(done.body).toMatchObject({
            state: action === "resolve" ? "resolved" : "dismissed",
            actionTakenBy: { id: mod.account.id },
            actionTakenAt: kith.clock.now().toISOString(),
            action_taken: true,
          });
          const reopened = await act(mod, id, "reopen");
          expect(reopened.status).toBe(200);
          expect(reopened.body).toMatchObject({ state: "open", assignedModerator: null, actionTakenBy: null, actionTakenAt: null });
        }
      }
    });

    it("refuses to reopen a report that is open or under review, and to assign a closed one (409)", async () => {
      const id = await newReport();
      const open = await act(mod, id, "reopen");
      expect(open.status).toBe(409);
      expect(open.body.code).toBe("report.not_closed");
      await act(mod, id, "assign", { userId: mod.account.id });
      expect((await act(mod, id, "reopen")).body.code).toBe("report.not_closed");
      await act(mod, id, "resolve");
      const assign = await act(mod, id, "assign", { userId: mod.account.id });
      expect(assign.status).toBe(409);
      expect(assign.body.code).toBe("report.assign_closed");
      expect((await show(mod, id)).body.state).toBe("resolved");
    });

    it("assigns only users who manage reports and are not suspended or limited (422)", async () => {
      const id = await newReport();
      const plain = await fresh();
      const limited = await kith.createUser(`rlimited${++serial}`, { role: "Moderator" });
      expect(
        (await call(kith, "POST", `/api/v1/admin/accounts/${limited.account.id}/action`, admin.token, { type: "silence" })).status,
      ).toBe(200);
      for (const userId of [plain.account.id, limited.account.id, reader.account.id, "us_0000000000000000000000000a"]) {
        const refused = await act(admin, id, "assign", { userId });
        expect(refused.status).toBe(422);
        expect(refused.body.code).toBe("report.assignee_ineligible");
      }
      expect((await act(admin, id, "assign", {})).status).toBe(400);
      const eligible = await call(kith, "GET", `${ADMIN}/eligible-assignees`, reader.token);
      expect(eligible.status).toBe(200);
      const ids = eligible.body.map((account: { id: string }) => account.id);
      expect(ids).toEqual(expect.arrayContaining([admin.account.id, mod.account.id]));
      for (const absent of [plain.account.id, limited.account.id, reader.account.id]) expect(ids).not.toContain(absent);
    });

    it("deletes a report with its comments, for good", async () => {
      const [reporter, target] = [await fresh(), await fresh()];
      const filed = await reportUser(reporter, target);
      expect((await call(kith, "DELETE", `${ADMIN}/${filed.body.id}/delete`, mod.token)).status).toBe(200);
      expect((await show(mod, filed.body.id)).status).toBe(404);
      expect((await call(kith, "POST", `/api/v1/reports/${filed.body.id}/edit-comment`, reporter.token, { comment: "x" })).status).toBe(
        404,
      );
      expect((await call(kith, "DELETE", `${ADMIN}/${filed.body.id}/delete`, mod.token)).status).toBe(404);
    });
  });

  describe("actions that answer reports", () => {
    it("a group manager's ban or removal naming `report_id` resolves the group's report about that member, and no other", async () => {
      const group = await createGroup(kith, groupOwner.token);
      const [spammer, troll, bystander] = [await fresh(), await fresh(), await fresh()];
      for (const user of [spammer, troll, bystander]) {
        expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token)).status).toBe(200);
      }
      const onSpam = await report(bystander, {
        targetType: "post",
        targetId: await post(spammer, { status: "buy now", group_id: group.id }),
      });
      const onTroll = await report(bystander, { targetType: "post", targetId: await post(troll, { status: "flame", group_id: group.id }) });
      const serverScoped = await reportUser(bystander, spammer);
      const members = `/api/v1/groups/${group.id}/members`;
      const bans = `/api/v1/groups/${group.id}/bans`;

      // A report about someone else, or outside the group's scope, is refused and nothing is done.
      const aboutOther = await call(kith, "POST", `${bans}/${spammer.account.id}`, groupOwner.token, { report_id: onTroll.body.id });
      expect(aboutOther.status).toBe(404);
      expect(aboutOther.body.code).toBe("report.not_found");
      const otherScope = await call(kith, "DELETE", `${members}/${spammer.account.id}?report_id=${serverScoped.body.id}`, groupOwner.token);
      expect(otherScope.status).toBe(404);
      expect((await call(kith, "GET", bans, groupOwner.token)).body).toEqual([]);

      const banned = await call(kith, "POST", `${bans}/${spammer.account.id}`, groupOwner.token, {
        reason: "spam",
        report_id: onSpam.body.id,
      });
      expect(banned.status).toBe(200);
      expect((await show(mod, onSpam.body.id)).body).toMatchObject({ state: "resolved" });
      expect((await call(kith, "DELETE", `${members}/${troll.account.id}?report_id=${onTroll.body.id}`, groupOwner.token)).status).toBe(
        200,
      );
      expect((await show(mod, onTroll.body.id)).body).toMatchObject({ state: "resolved" });
      expect((await show(mod, serverScoped.body.id)).body).toMatchObject({ state: "open" });
    });

    it("a group moderator removes a status in the group, resolving the report `report_id` names; others are refused", async () => {
      const group = await createGroup(kith, groupOwner.token);
      const [author, bystander, groupMod, outsider] = [await fresh(), await fresh(), await fresh(), await fresh()];
      for (const user of [author, bystander]) {
        expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, user.token)).status).toBe(200);
      }
      await giveGroupRole(group.id, groupMod, "Moderator");
      const spam = await post(author, { status: "buy now", group_id: group.id });
      const ownerStatus = await post(groupOwner, { status: "welcome", group_id: group.id });
      const outside = await post(author, { status: "not in the group" });
      const filed = await report(bystander, { targetType: "post", targetId: spam });
      const elsewhere = await reportUser(bystander, await fresh());
      const remove = (user: TestUser, statusId: string, reportId?: string) =>
        call(kith, "DELETE", `/api/v1/groups/${group.id}/statuses/${statusId}${reportId ? `?report_id=${reportId}` : ""}`, user.token);

      expect((await remove(bystander, spam)).status).toBe(403);
      expect((await remove(outsider, spam)).status).toBe(403);
      expect((await remove(groupMod, outside)).body.code).toBe("status.not_found");
      // A moderator does not outrank the owner, nor may remove the owner's statuses.
      const outranked = await remove(groupMod, ownerStatus);
      expect(outranked.status).toBe(403);
      expect(outranked.body.code).toBe("group.outranked");
      const otherReport = await remove(groupMod, spam, elsewhere.body.id);
      expect(otherReport.status).toBe(404);
      expect(otherReport.body.code).toBe("report.not_found");
      expect((await call(kith, "GET", `/api/v1/statuses/${spam}`, author.token)).status).toBe(200);

      expect((await remove(groupMod, spam, filed.body.id)).status).toBe(200);
      expect((await call(kith, "GET", `/api/v1/statuses/${spam}`, author.token)).status).toBe(404);
      expect((await show(mod, filed.body.id)).body).toMatchObject({ state: "resolved", actionTakenBy: { id: groupMod.account.id } });
      expect((await remove(groupMod, spam)).status).toBe(404);
      const log = await call(kith, "GET", `/api/v1/groups/${group.id}/audit_log`, groupOwner.token);
      expect(log.status).toBe(200);
      expect(log.body.map((entry: { action: string; targetId?: string }) => entry.action)).toContain("status.remove");
    });
  });

  describe("audit log", () => {
    it("records each moderator's action on a report, with who did it and the note's text", async () => {
      const id = await newReport();
      expect((await act(mod, id, "assign", { userId: mod.account.id })).status).toBe(200);
      expect((await act(mod, id, "add-note", { note: "looked at it" })).status).toBe(200);
      expect((await act(admin, id, "resolve")).status).toBe(200);
      expect((await act(admin, id, "reopen")).status).toBe(200);
      const log = await call(kith, "GET", `/api/v1/admin/audit_log?target_type=report&target_id=${id}`, admin.token);
      expect(log.status).toBe(200);
      const entries = (log.body as { action: string; actor_id: string; text: string | null }[]).map((entry) => [
        entry.action,
        entry.actor_id,
        entry.text,
      ]);
      expect(entries).toEqual([
        ["report.reopen", admin.account.id, null],
        ["report.resolve", admin.account.id, null],
        ["report.add_note", mod.account.id, "looked at it"],
        ["report.assign", mod.account.id, `assigned to ${mod.account.id}`],
      ]);
      // A refused transition records nothing.
      expect((await act(mod, id, "reopen")).status).toBe(409);
      const again = await call(kith, "GET", `/api/v1/admin/audit_log?target_type=report&target_id=${id}`, admin.token);
      expect(again.body).toHaveLength(4);
    });
  });

  describe("notes", () => {
    it("adds zero-indexed, timestamped, attributed notes and removes them by index", async () => {
      const id = await newReport();
      for (const [user, note] of [
        [mod, "zero"],
        [admin, "one"],
        [mod, "two"],
      ] as const) {
        expect((await act(user, id, "add-note", { note })).status).toBe(200);
      }
      const shown = await show(reader, id);
      expect(shown.body.notes).toEqual([
        { index: 0, text: "zero", account: expect.objectContaining({ id: mod.account.id }), createdAt: expect.any(String) },
        { index: 1, text: "one", account: expect.objectContaining({ id: admin.account.id }), createdAt: expect.any(String) },
        { index: 2, text: "two", account: expect.objectContaining({ id: mod.account.id }), createdAt: expect.any(String) },
      ]);
      const removed = await act(mod, id, "remove-note", { index: 1 });
      expect(removed.status).toBe(200);
      expect(removed.body.notes.map((note: { index: number; text: string }) => [note.index, note.text])).toEqual([
        [0, "zero"],
        [1, "two"],
      ]);
      for (const index of [2, 5, -1]) {
        const refused = await act(mod, id, "remove-note", { index });
        expect(refused.status, String(index)).toBe(422);
        expect(refused.body.code).toBe("report.note_index_invalid");
      }
      expect((await act(mod, id, "remove-note", { index: "first" })).status).toBe(400);
      expect((await act(mod, id, "add-note", { note: "" })).status).toBe(422);
      expect((await show(mod, id)).body.notes).toHaveLength(2);
    });
  });

  describe("permissions", () => {
    it("lets Reports.Read read but not handle; a user without grants neither", async () => {
      const id = await newReport();
      expect((await show(reader, id)).status).toBe(200);
      expect((await call(kith, "GET", `${ADMIN}/list`, reader.token)).status).toBe(200);
      for (const action of ["resolve", "dismiss", "reopen", "unassign", "add-note", "remove-note", "assign"]) {
        const refused = await act(reader, id, action, { note: "n", index: 0, userId: null });
        expect(refused.status, action).toBe(403);
        expect(refused.body.code).toBe("auth.forbidden");
      }
      const nobody = await fresh();
      expect((await show(nobody, id)).status).toBe(403);
      expect((await call(kith, "GET", `${ADMIN}/reported-users`, nobody.token)).status).toBe(403);
    });

    it("lets a group's moderators handle the group's reports in its scope only; a grant in another group does not count", async () => {
      const group = await createGroup(kith, groupOwner.token);
      const other = await createGroup(kith, groupOwner.token);
      const groupMod = await fresh("rgm");
      const otherMod = await fresh("rgo");
      await giveGroupRole(group.id, groupMod, "Moderator");
      await giveGroupRole(other.id, otherMod, "Moderator");
      const author = await fresh();
      expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, author.token)).status).toBe(200);
      const statusId = await post(author, { status: "in the group", group_id: group.id });
      const onStatus = await report(await fresh(), { targetType: "post", targetId: statusId });
      const onGroup = await report(await fresh(), { targetType: "group", targetId: group.id });
      const serverScoped = await newReport();

      // Group scope: only the group's reports, to its moderators.
      const listed = await call(kith, "GET", `${ADMIN}/list?scope=${group.id}`, groupMod.token);
      expect(listed.status).toBe(200);
      expect(listed.body.map((r: { id: string }) => r.id).sort()).toEqual([onStatus.body.id, onGroup.body.id].sort());
      expect(listed.body.every((r: { scope: string }) => r.scope === group.id)).toBe(true);
      expect((await show(groupMod, onStatus.body.id, group.id)).status).toBe(200);
      expect((await show(groupMod, serverScoped, group.id)).status).toBe(404);
      // Mastodon's Admin::Account fields keep accounts' email and addresses from a group's moderators.
      const asGroupMod = await show(groupMod, onStatus.body.id, group.id);
      expect(asGroupMod.body.target_account).toMatchObject({ id: author.account.id, email: "", ip: null, ips: [] });
      expect((await show(mod, onStatus.body.id)).body.target_account.email).toBe(`${author.account.username.toLowerCase()}@kith.test`);
      // Without a scope, or in another group's, the group grant does not count.
      expect((await call(kith, "GET", `${ADMIN}/list`, groupMod.token)).status).toBe(403);
      expect((await call(kith, "GET", `${ADMIN}/list?scope=${other.id}`, groupMod.token)).status).toBe(403);
      expect((await act(otherMod, onStatus.body.id, "resolve", {}, group.id)).status).toBe(403);
      expect((await call(kith, "GET", `${ADMIN}/reported-groups`, groupMod.token)).status).toBe(403);

      // The group's moderator handles the report, and may be assigned it there, not in server scope.
      const assigned = await act(groupMod, onStatus.body.id, "assign", { userId: groupMod.account.id }, group.id);
      expect(assigned.status).toBe(200);
      expect(assigned.body).toMatchObject({ state: "under_review", assignedModerator: { id: groupMod.account.id } });
      expect((await act(mod, serverScoped, "assign", { userId: groupMod.account.id })).body.code).toBe("report.assignee_ineligible");
      const inGroup = (await call(kith, "GET", `${ADMIN}/eligible-assignees?scope=${group.id}`, groupMod.token)).body.map(
        (a: { id: string }) => a.id,
      );
      expect(inGroup).toEqual(expect.arrayContaining([groupMod.account.id, mod.account.id]));
      expect(inGroup).not.toContain(otherMod.account.id);
      const inServer = (await call(kith, "GET", `${ADMIN}/eligible-assignees`, mod.token)).body.map((a: { id: string }) => a.id);
      expect(inServer).not.toContain(groupMod.account.id);
      expect((await act(groupMod, onGroup.body.id, "resolve", {}, group.id)).body).toMatchObject({
        state: "resolved",
        actionTakenBy: { id: groupMod.account.id },
      });

      // The aggregated views of the group's scope hold its statuses only; the group's moderators heard of its new reports.
      const posts = await call(kith, "GET", `${ADMIN}/reported-posts?scope=${group.id}`, groupMod.token);
      expect(posts.body.map((entry: { targetId: string }) => entry.targetId)).toEqual([statusId]);
      expect((await call(kith, "GET", `${ADMIN}/reported-users?scope=${group.id}`, groupMod.token)).body).toEqual([]);
      const told = await call(kith, "GET", "/api/v1/notifications?types[]=admin.report", groupMod.token);
      expect(told.body.map((n: { report: { id: string } | null }) => n.report?.id)).toContain(onStatus.body.id);
      expect((await call(kith, "GET", "/api/v1/notifications?types[]=admin.report", otherMod.token)).body).toEqual([]);

      // Server scope holds the group's reports too.
      const all = await call(kith, "GET", `${ADMIN}/list?targetId=${group.id}`, mod.token);
      expect(all.body.map((r: { id: string }) => r.id)).toEqual([onGroup.body.id]);
    });

    it("lets a secret group be reported by its members only (403 to others)", async () => {
      const secret = await createGroup(kith, groupOwner.token, { secret: true });
      const stranger = await fresh();
      const refused = await report(stranger, { targetType: "group", targetId: secret.id, comment: "hidden" });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("report.secret_group");
      const byOwner = await report(groupOwner, { targetType: "group", targetId: secret.id, comment: "from inside" });
      expect(byOwner.status).toBe(200);
      expect(byOwner.body).toMatchObject({ targetType: "group", targetId: secret.id });
      expect((await show(mod, byOwner.body.id)).body).toMatchObject({
        scope: secret.id,
        target: { group: { id: secret.id, secret: true } },
      });
    });
  });

  describe("aggregated views", () => {
    it("counts reports a reported status, user and group in SQL, pages with a cursor, and keeps status reports out of reported-users", async () => {
      const author = await fresh();
      const first = await post(author, { status: "one" });
      const second = await post(author, { status: "two" });
      const [a, b, c] = [await fresh(), await fresh(), await fresh()];
      const old = await report(a, { targetType: "post", targetId: first });
      await report(b, { targetType: "post", targetId: first });
      await act(mod, old.body.id, "resolve");
      kith.clock.advance(1000);
      const renewed = await report(c, { targetType: "post", targetId: first });
      kith.clock.advance(1000);
      await report(a, { targetType: "post", targetId: second });

      const page = await call(kith, "GET", `${ADMIN}/reported-posts?limit=2`, mod.token);
      expect(page.status).toBe(200);
      const entries = page.body as {
        targetId: string;
        openCount: number;
        totalCount: number;
        report: { id: string };
        subject: { status: { id: string } };
      }[];
      expect(entries.map((entry) => entry.targetId)).toEqual([second, first]);
      expect(entries[1]).toMatchObject({
        openCount: 1,
        totalCount: 2,
        report: { id: renewed.body.id },
        subject: { status: { id: first } },
      });
      expect(entries[0]).toMatchObject({ openCount: 1, totalCount: 1, latestReportedAt: expect.any(String), latestActionTakenAt: null });

      const one = await kith.request("GET", `${ADMIN}/reported-posts?limit=1`, { token: mod.token });
      const link = one.headers.get("link") ?? "";
      expect(link).toContain('rel="next"');
      const next = /<([^>]+)>; rel="next"/.exec(link)?.[1] ?? "";
      const following = await call(kith, "GET", new URL(next).pathname + new URL(next).search, mod.token);
      expect(following.body.map((entry: { targetId: string }) => entry.targetId)).toEqual([first]);
      expect((await call(kith, "GET", `${ADMIN}/reported-posts?cursor=nonsense`, mod.token)).status).toBe(422);

      const users = (await call(kith, "GET", `${ADMIN}/reported-users?limit=80`, mod.token)).body.map(
        (entry: { targetId: string }) => entry.targetId,
      );
      expect(users).not.toContain(author.account.id);
      await reportUser(a, author);
      const withUser = (await call(kith, "GET", `${ADMIN}/reported-users?limit=1`, mod.token)).body;
      expect(withUser[0]).toMatchObject({
        targetId: author.account.id,
        openCount: 1,
        totalCount: 1,
        subject: { account: { id: author.account.id } },
      });

      const group = await createGroup(kith, groupOwner.token);
      await report(a, { targetType: "group", targetId: group.id });
      await report(b, { targetType: "group", targetId: group.id });
      const groups = (await call(kith, "GET", `${ADMIN}/reported-groups?limit=1`, reader.token)).body;
      expect(groups[0]).toMatchObject({ targetId: group.id, openCount: 1, totalCount: 1, subject: { group: { id: group.id } } });
      expect(groups[0].report.comments).toHaveLength(2);
    });
  });

  describe("notifications", () => {
    it("tells the moderators of a new report with admin.report, not of a merge", async () => {
      const [one, two, target] = [await fresh(), await fresh(), await fresh()];
      const filed = await reportUser(one, target);
      await reportUser(two, target);
      const notifications = await call(kith, "GET", "/api/v1/notifications?types[]=admin.report&limit=40", mod.token);
      expect(notifications.status).toBe(200);
      const about = notifications.body.filter((n: { report: { id: string } | null }) => n.report?.id === filed.body.id);
      expect(about).toHaveLength(1);
      expect(about[0]).toMatchObject({
        type: "admin.report",
        account: { id: one.account.id },
        report: { target_account: { id: target.account.id } },
      });
      // The reported account hears nothing of it, nor of who reported it.
      expect((await call(kith, "GET", "/api/v1/notifications", target.token)).body).toEqual([]);
    });
  });
});
