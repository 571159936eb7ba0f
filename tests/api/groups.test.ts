/** Groups themselves: making, reading, the directory and search, changing, deleting; rules and entry questions. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestKith, TestUser } from "@kith/core/testing";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup, groupName } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

describeOnEngines("groups", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`gu${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("gowner");
    member = await kith.createUser("gmember");
    stranger = await kith.createUser("gstranger");
  });
  afterAll(() => kith.close());

  /** A group of `owner`'s that `member` joined while it was open; then given its join mode. */
  async function groupWithMember({ join_mode, ...body }: Record<string, unknown> = {}) {
    const group = await createGroup(kith, owner.token, body);
    expect((await call(kith, "POST", `/api/v1/groups/${group.id}/join`, member.token)).status).toBe(200);
    if (join_mode) expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { join_mode })).status).toBe(200);
    return group;
  }

  /** Gives the user the group's built-in role of that name, as the group's owner does through RBAC's group scope. */
  async function giveGroupRole(groupId: string, user: TestUser, roleName: string): Promise<void> {
    const roles = await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${groupId}`, owner.token);
    expect(roles.status).toBe(200);
    const role = roles.body.find((candidate: { name: string }) => candidate.name === roleName);
    const assigned = await call(kith, "POST", `/api/v1/admin/rbac/actors/${user.account.id}/roles?scope=${groupId}`, owner.token, {
      roleId: role.roleId,
    });
    expect(assigned.status).toBe(200);
  }

  describe("making a group", () => {
    it("makes its maker its owner, with the group's own Owner and Member roles", async () => {
      const name = groupName("Makers");
      const made = await call(kith, "POST", "/api/v1/groups", owner.token, {
        name,
        display_name: "The Makers",
        note: "We make things",
        join_mode: "APPROVAL",
      });
      expect(made.status).toBe(200);
      expect(made.body).toMatchObject({
        id: expect.stringMatching(/^gr_[0-9a-z]{26}$/),
        name,
        display_name: "The Makers",
        note: "We make things",
        join_mode: "APPROVAL",
        secret: false,
        discoverable: true,
        members_count: 1,
        statuses_count: 0,
        created_at: expect.any(String),
      });
      expect(made.body.membership).toMatchObject({ member: true, requested: false, invited: false, joined_at: expect.any(String) });
      expect(made.body.membership.roles.map((role: { name: string }) => role.name)).toEqual(["Owner", "Member"]);

      // The group's roles are RBAC roles in its scope, built in.
      const roles = await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${made.body.id}`, owner.token);
      expect(roles.status).toBe(200);
      expect(roles.body.map((role: { name: string }) => role.name).sort()).toEqual(["Admin", "Member", "Moderator", "Owner"]);
      expect(roles.body.every((role: { scope: string; builtIn: boolean }) => role.scope === made.body.id && role.builtIn)).toBe(true);
    });

    it("answers 401 without credentials", async () => {
      const response = await call(kith, "POST", "/api/v1/groups", undefined, { name: groupName() });
      expect(response.status).toBe(401);
      expect(response.body.code).toBe("auth.unauthenticated");
    });

    it("refuses a bad name or join mode (422), a missing name or a value of the wrong type (400)", async () => {
      for (const body of [{ name: "has space" }, { name: "" }, { name: "x".repeat(31) }, { name: groupName(), join_mode: "SOMETIMES" }]) {
        const response = await call(kith, "POST", "/api/v1/groups", owner.token, body);
        expect(response.status).toBe(422);
        expect(response.body.details.length).toBeGreaterThan(0);
      }
      for (const body of [{}, { name: 12 }, { name: groupName(), secret: "maybe" }]) {
        const response = await call(kith, "POST", "/api/v1/groups", owner.token, body);
        expect(response.status).toBe(400);
        expect(response.body.code).toBe("request.invalid_parameters");
      }
      const malformed = await kith.request("POST", "/api/v1/groups", {
        token: owner.token,
        body: "{",
        headers: { "content-type": "application/json" },
      });
      expect(malformed.status).toBe(400);
    });

    it("refuses a name taken by a group, whatever its case, or by an account of the server", async () => {
      const name = groupName("Taken");
      await createGroup(kith, owner.token, { name });
      for (const taken of [name, name.toUpperCase(), member.account.username]) {
        const response = await call(kith, "POST", "/api/v1/groups", owner.token, { name: taken });
        expect(response.status).toBe(422);
        expect(response.body.code).toBe("group.name_taken");
      }
    });
  });

  describe("reading a group", () => {
    it("shows a group to a guest without a membership, and to a stranger with theirs", async () => {
      const group = await createGroup(kith, owner.token);
      const asGuest = await call(kith, "GET", `/api/v1/groups/${group.id}`);
      expect(asGuest.status).toBe(200);
      expect(asGuest.body).toMatchObject({ id: group.id, membership: null });
      const asStranger = await call(kith, "GET", `/api/v1/groups/${group.id}`, stranger.token);
      expect(asStranger.body.membership).toEqual({ member: false, joined_at: null, roles: [], requested: false, invited: false });
    });

    it("answers 404 for an unknown or malformed group id", async () => {
      for (const id of ["gr_00000000000000000000000000", "nope", "x".repeat(80)]) {
        const response = await call(kith, "GET", `/api/v1/groups/${id}`, owner.token);
        expect(response.status).toBe(404);
      }
    });
  });

  describe("the directory", () => {
    it("lists discoverable groups that are not secret, and the caller's own; searches names", async () => {
      const word = `dir${Date.now().toString(36)}`;
      const listed = await createGroup(kith, owner.token, { name: `${word}_listed` });
      const unlisted = await createGroup(kith, owner.token, { name: `${word}_unlisted`, discoverable: false });
      const secret = await createGroup(kith, owner.token, { name: `${word}_secret`, secret: true });
      const named = await createGroup(kith, owner.token, { display_name: `Club ${word} of readers` });

      const ids = async (token: string | undefined, query: string) =>
        ((await call(kith, "GET", `/api/v1/groups?${query}`, token)).body as { id: string }[]).map((group) => group.id);
      expect(await ids(undefined, `q=${word}`)).toEqual([named.id, listed.id]);
      expect(await ids(stranger.token, `q=${word.toUpperCase()}`)).toEqual([named.id, listed.id]);
      // The owner sees its own unlisted and secret groups too.
      expect(await ids(owner.token, `q=${word}`)).toEqual([named.id, secret.id, unlisted.id, listed.id]);
      expect(await ids(owner.token, `q=${word}_&mine=true`)).toEqual([secret.id, unlisted.id, listed.id]);
      expect(await ids(stranger.token, `q=${word}&mine=true`)).toEqual([]);
      expect(await ids(undefined, "q=%25")).not.toContain(unlisted.id);
    });

    it("pages newest first with a Link header", async () => {
      const word = `page${Date.now().toString(36)}`;
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await createGroup(kith, owner.token, { name: `${word}_${i}` }));
      const first = await kith.request("GET", `/api/v1/groups?q=${word}&limit=2`);
      const page = (await first.json()) as { id: string }[];
      expect(page.map((group) => group.id)).toEqual([made[2]?.id, made[1]?.id]);
      const next = /<([^>]+)>; rel="next"/.exec(first.headers.get("link") ?? "")?.[1];
      expect(next).toBeDefined();
      const rest = (await (await kith.request("GET", new URL(next ?? "").pathname + new URL(next ?? "").search)).json()) as { id: string }[];
      expect(rest.map((group) => group.id)).toEqual([made[0]?.id]);
    });

    it("refuses a query too long (422) or malformed (400)", async () => {
      expect((await call(kith, "GET", `/api/v1/groups?q=${"x".repeat(101)}`)).status).toBe(422);
      expect((await call(kith, "GET", "/api/v1/groups?mine=perhaps", owner.token)).status).toBe(400);
    });
  });

  describe("changing and deleting a group", () => {
    it("lets its owner change it, and refuses a bad value (422)", async () => {
      const group = await createGroup(kith, owner.token);
      const changed = await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, {
        display_name: "Renamed",
        note: "New note",
        join_mode: "QUESTIONS",
        discoverable: false,
      });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ name: group.name, display_name: "Renamed", note: "New note", join_mode: "QUESTIONS", discoverable: false });
      expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { join_mode: "NEVER" })).status).toBe(422);
      expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, owner.token, { secret: "maybe" })).status).toBe(400);
    });

    it("needs GroupSettings.Manage in that group: 401, 403 for a stranger, a member, and a holder in another group", async () => {
      const group = await groupWithMember();
      const elsewhere = await freshUser();
      const other = await createGroup(kith, elsewhere.token);
      expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, undefined, { note: "x" })).status).toBe(401);
      for (const user of [stranger, member, elsewhere]) {
        const response = await call(kith, "PATCH", `/api/v1/groups/${group.id}`, user.token, { note: "x" });
        expect(response.status).toBe(403);
        expect(response.body.code).toBe("auth.forbidden");
      }
      // `elsewhere` owns `other`: its grants there do not count here, but do there.
      expect((await call(kith, "PATCH", `/api/v1/groups/${other.id}`, elsewhere.token, { note: "x" })).status).toBe(200);
      // The group's Admin role is enough; no global role is needed.
      await giveGroupRole(group.id, member, "Admin");
      expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, member.token, { note: "by an admin" })).status).toBe(200);
    });

    it("is deleted by its owners only (GroupOwnership.Manage), with its roles", async () => {
      const group = await groupWithMember();
      await giveGroupRole(group.id, member, "Admin");
      const byAdmin = await call(kith, "DELETE", `/api/v1/groups/${group.id}`, member.token);
      expect(byAdmin.status).toBe(403);
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}`)).status).toBe(401);
      const deleted = await call(kith, "DELETE", `/api/v1/groups/${group.id}`, owner.token);
      expect(deleted).toEqual({ status: 200, body: {} });
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}`, owner.token)).status).toBe(404);
      // Its roles went with it: nobody keeps a grant of the deleted group.
      const admin = await kith.createUser(`gadmin${++serial}`, { role: "Admin" });
      expect((await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${group.id}`, admin.token)).body).toEqual([]);
      const roles = await call(kith, "GET", `/api/v1/admin/rbac/actors/${member.account.id}/roles?scope=${group.id}`, admin.token);
      expect(roles).toEqual({ status: 200, body: [] });
    });

    it("lets a global grant holder (a server admin) run a group it is not in", async () => {
      const group = await createGroup(kith, owner.token);
      const moderator = await freshUser();
      await giveGrants(kith, moderator.account.id, [{ resource: "GroupSettings", access: ["Add", "Modify", "Delete"], scope: "global" }]);
      expect((await call(kith, "PATCH", `/api/v1/groups/${group.id}`, moderator.token, { note: "from the server" })).status).toBe(200);
    });
  });

  describe("rules", () => {
    it("are public for a group that is not secret, and replaced whole, in order, by its managers", async () => {
      const group = await groupWithMember();
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/rules`)).body).toEqual([]);
      const put = await call(kith, "PUT", `/api/v1/groups/${group.id}/rules`, owner.token, {
        rules: [{ text: "Be kind", hint: "Assume good faith" }, { text: "Stay on topic" }],
      });
      expect(put.status).toBe(200);
      expect(put.body).toEqual([
        { id: expect.any(String), text: "Be kind", hint: "Assume good faith", position: 0 },
        { id: expect.any(String), text: "Stay on topic", hint: "", position: 1 },
      ]);
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/rules`)).body).toEqual(put.body);
      await call(kith, "PUT", `/api/v1/groups/${group.id}/rules`, owner.token, { rules: [{ text: "Only this" }] });
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/rules`)).body.map((rule: { text: string }) => rule.text)).toEqual(["Only this"]);
    });

    it("refuses bad rules (422), and anyone without GroupSettings.Manage (401, 403)", async () => {
      const group = await groupWithMember();
      for (const body of [{ rules: [{ text: "" }] }, { rules: [{ text: "x".repeat(1001) }] }, { rules: new Array(51).fill({ text: "x" }) }]) {
        expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/rules`, owner.token, body)).status).toBe(422);
      }
      for (const body of [{ rules: "be nice" }, {}]) {
        expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/rules`, owner.token, body)).status).toBe(400);
      }
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/rules`, undefined, { rules: [] })).status).toBe(401);
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/rules`, member.token, { rules: [] })).status).toBe(403);
    });
  });

  describe("entry questions", () => {
    const questions = [
      { question: "Why join?", kind: "text" },
      { question: "Favourite colour?", kind: "single_choice", required: false, options: ["red", "blue"] },
      { question: "I accept the rules", kind: "multiple_choice", options: ["I accept", "I do not"], expected: ["I accept"] },
    ];

    it("are replaced by managers; the expected answers are shown to them only", async () => {
      const group = await groupWithMember({ join_mode: "QUESTIONS" });
      const put = await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, owner.token, { questions });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      expect(put.body).toEqual([
        { id: expect.any(String), question: "Why join?", kind: "text", required: true, options: [], expected: null },
        { id: expect.any(String), question: "Favourite colour?", kind: "single_choice", required: false, options: ["red", "blue"], expected: null },
        {
          id: expect.any(String),
          question: "I accept the rules",
          kind: "multiple_choice",
          required: true,
          options: ["I accept", "I do not"],
          expected: ["I accept"],
        },
      ]);
      const asGuest = await call(kith, "GET", `/api/v1/groups/${group.id}/questions`);
      expect(asGuest.status).toBe(200);
      expect(asGuest.body.map((question: { expected: unknown }) => question.expected)).toEqual([null, null, null]);
      const asMember = await call(kith, "GET", `/api/v1/groups/${group.id}/questions`, member.token);
      expect(asMember.body[2].expected).toBeNull();
      const asOwner = await call(kith, "GET", `/api/v1/groups/${group.id}/questions`, owner.token);
      expect(asOwner.body[2].expected).toEqual(["I accept"]);
    });

    it("refuses invalid questions with a detail a field (422)", async () => {
      const group = await createGroup(kith, owner.token, { join_mode: "QUESTIONS" });
      const cases: [unknown, string][] = [
        [[{ question: "Pick", kind: "single_choice", options: ["only"] }], "questions.0.options"],
        [[{ question: "Pick", kind: "single_choice", options: ["a", "a"] }], "questions.0.options"],
        [[{ question: "Pick", kind: "multiple_choice", options: ["a", "b"], expected: ["c"] }], "questions.0.expected"],
        [[{ question: "Say", kind: "text" }, { question: "Say", kind: "text", options: ["a", "b"] }], "questions.1.options"],
        [[{ question: "Say", kind: "text", expected: ["yes"] }], "questions.0.expected"],
      ];
      for (const [body, field] of cases) {
        const response = await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, owner.token, { questions: body });
        expect(response.status).toBe(422);
        expect(response.body.code).toBe("group.questions_invalid");
        expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
      }
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, owner.token, { questions: [{ question: "?", kind: "essay" }] })).status).toBe(422);
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, owner.token, { questions: [{ kind: "text" }] })).status).toBe(400);
      expect((await call(kith, "GET", `/api/v1/groups/${group.id}/questions`)).body).toEqual([]);
    });

    it("are changed by GroupSettings.Manage holders of the group only (401, 403)", async () => {
      const group = await groupWithMember({ join_mode: "QUESTIONS" });
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, undefined, { questions })).status).toBe(401);
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, member.token, { questions })).status).toBe(403);
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/questions`, stranger.token, { questions })).status).toBe(403);
    });
  });
});
