/**
 * A secret group leaks through none of the groups routes: to a guest, a
 * stranger, a removed, banned or departed member and a declined invitee,
 * every route that names it answers as it does for a group that does not
 * exist, and the lists (directory, search, one's groups, invitations,
 * notifications) never show it.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import type { AnyRoute } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";
import { describeOnEngines } from "../support/engines.js";
import { call, createGroup } from "../support/groups.js";

const MISSING_GROUP = "gr_00000000000000000000000000";

/** Every route that names a group in its path. */
const groupRoutes = routeTable.filter((route) => route.path.startsWith("/api/v1/groups/{groupId}"));

describeOnEngines("secret groups", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let member: TestUser;
  let secret: { id: string; name: string };
  const outsiders = new Map<string, TestUser | undefined>();
  let serial = 0;
  const freshUser = () => kith.createUser(`sc${++serial}`);

  /** A body each write route accepts, so that what it answers is about the group, not the input. */
  function bodyFor(route: AnyRoute, target: TestUser): unknown {
    if (route.method === "GET" || route.method === "DELETE") return undefined;
    if (route.path.endsWith("/rules")) return { rules: [] };
    if (route.path.endsWith("/questions")) return { questions: [] };
    if (route.path.endsWith("/answers")) return { answers: [] };
    if (route.path.endsWith("/invitations")) return { account_id: target.account.id };
    return {};
  }

  function pathFor(route: AnyRoute, groupId: string, target: TestUser): string {
    return route.path.replace(/\{(\w+)\}/g, (_, param: string) => {
      if (param === "groupId") return groupId;
      if (param === "userId") return target.account.id;
      return "sample";
    });
  }

  async function invite(user: TestUser): Promise<string> {
    const invited = await call(kith, "POST", `/api/v1/groups/${secret.id}/invitations`, owner.token, { account_id: user.account.id });
    expect(invited.status).toBe(200);
    return invited.body.id;
  }

  async function inviteAndJoin(user: TestUser): Promise<void> {
    await invite(user);
    expect((await call(kith, "POST", `/api/v1/groups/${secret.id}/join`, user.token)).status).toBe(200);
  }

  beforeAll(async () => {
    kith = await engine.testKith();
    owner = await kith.createUser("sowner");
    member = await kith.createUser("smember");
    secret = await createGroup(kith, owner.token, { name: `hidden${Date.now().toString(36)}`, secret: true, join_mode: "APPROVAL" });
    await call(kith, "PUT", `/api/v1/groups/${secret.id}/rules`, owner.token, { rules: [{ text: "Tell nobody" }] });
    await call(kith, "PUT", `/api/v1/groups/${secret.id}/questions`, owner.token, { questions: [{ question: "Password?", kind: "text" }] });
    await inviteAndJoin(member);

    outsiders.set("a guest", undefined);
    outsiders.set("a stranger", await freshUser());

    const removed = await freshUser();
    await inviteAndJoin(removed);
    expect((await call(kith, "GET", `/api/v1/groups/${secret.id}/members`, removed.token)).status).toBe(200);
    expect((await call(kith, "DELETE", `/api/v1/groups/${secret.id}/members/${removed.account.id}`, owner.token)).status).toBe(200);
    outsiders.set("a removed member", removed);

    const banned = await freshUser();
    await inviteAndJoin(banned);
    expect((await call(kith, "POST", `/api/v1/groups/${secret.id}/bans/${banned.account.id}`, owner.token)).status).toBe(200);
    outsiders.set("a banned member", banned);

    const departed = await freshUser();
    await inviteAndJoin(departed);
    expect((await call(kith, "POST", `/api/v1/groups/${secret.id}/leave`, departed.token)).status).toBe(200);
    outsiders.set("a member who left", departed);

    const declined = await freshUser();
    const invitation = await invite(declined);
    expect((await call(kith, "GET", `/api/v1/groups/${secret.id}`, declined.token)).status).toBe(200);
    expect((await call(kith, "POST", `/api/v1/group_invitations/${invitation}/decline`, declined.token)).status).toBe(200);
    outsiders.set("an invitee who declined", declined);
  });
  afterAll(() => kith.close());

  it("is seen by its members on every read route", async () => {
    for (const path of ["", "/members", "/rules", "/questions"]) {
      expect((await call(kith, "GET", `/api/v1/groups/${secret.id}${path}`, member.token)).status).toBe(200);
    }
    for (const path of ["/join_requests", "/invitations", "/bans"]) {
      expect((await call(kith, "GET", `/api/v1/groups/${secret.id}${path}`, owner.token)).status).toBe(200);
    }
    const mine = (await call(kith, "GET", "/api/v1/groups?mine=true", member.token)).body;
    expect(mine.map((group: { id: string }) => group.id)).toContain(secret.id);
  });

  it("walks the group routes it walks", () => {
    expect(groupRoutes.length).toBeGreaterThanOrEqual(20);
  });

  it.each([...["a guest", "a stranger", "a removed member", "a banned member", "a member who left", "an invitee who declined"]])(
    "answers %s on every route that names it exactly as for a group that does not exist",
    async (who) => {
      const user = outsiders.get(who);
      const target = member;
      for (const route of groupRoutes) {
        const onSecret = await call(kith, route.method, pathFor(route, secret.id, target), user?.token, bodyFor(route, target));
        const onMissing = await call(kith, route.method, pathFor(route, MISSING_GROUP, target), user?.token, bodyFor(route, target));
        const label = `${route.method} ${route.path}`;
        expect({ label, status: onSecret.status, code: onSecret.body?.code }).toEqual({
          label,
          status: onMissing.status,
          code: onMissing.body?.code,
        });
        expect([401, 404], label).toContain(onSecret.status);
      }
    },
  );

  it("is never in the directory or its search, nor in an outsider's own groups", async () => {
    for (const [who, user] of outsiders) {
      for (const query of [`q=${secret.name}`, "", `q=${secret.name}&mine=true`, "mine=true"]) {
        const listed = await call(kith, "GET", `/api/v1/groups?${query}`, user?.token);
        expect(listed.status, who).toBe(200);
        expect(listed.body.map((group: { id: string }) => group.id), `${who}: ${query}`).not.toContain(secret.id);
      }
    }
  });

  it("leaves no invitation, and no group in the notifications of those who lost sight of it", async () => {
    for (const [who, user] of outsiders) {
      if (!user) continue;
      expect((await call(kith, "GET", "/api/v1/group_invitations", user.token)).body, who).toEqual([]);
      const notices = (await call(kith, "GET", "/api/v1/notifications", user.token)).body as { type: string; group?: unknown }[];
      for (const notice of notices.filter((candidate) => candidate.type.startsWith("group."))) expect(notice.group, who).toBeNull();
    }
    // The invitee who declined had been told of the invitation: the notification stays, the group does not show.
    const declined = outsiders.get("an invitee who declined");
    const notices = (await call(kith, "GET", "/api/v1/notifications?types[]=group.invitation", declined?.token)).body;
    expect(notices).toMatchObject([{ type: "group.invitation", group: null }]);
  });

  it("cuts a removed member off at once", async () => {
    const user = await freshUser();
    await inviteAndJoin(user);
    expect((await call(kith, "GET", `/api/v1/groups/${secret.id}/rules`, user.token)).status).toBe(200);
    await call(kith, "DELETE", `/api/v1/groups/${secret.id}/members/${user.account.id}`, owner.token);
    expect((await call(kith, "GET", `/api/v1/groups/${secret.id}/rules`, user.token)).status).toBe(404);
    expect((await call(kith, "GET", `/api/v1/groups/${secret.id}`, user.token)).body.code).toBe("group.not_found");
  });
});
