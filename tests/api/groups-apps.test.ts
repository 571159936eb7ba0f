/**
 * Group applications: the catalog offered at the group entry point (what the
 * composed modules declare, and the planned applications no module offers
 * yet), installing and uninstalling one in a group (GroupApps.Manage), and
 * an application's route answering 404 for a group that does not have it.
 */
import { defaultModules, defineModule, eventsModule, groupsModule, moduleRoute, publicAccess, type GroupsServices } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { describeOnEngines } from "../support/engines.js";
import { type GroupJson, call, createGroup, createGroupWithMember } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

const route = moduleRoute<GroupsServices>();

/** A module offering groups an application, whose one route serves only the groups that installed it. */
const notesModule = defineModule({
  name: "app-notes",
  requires: [groupsModule],
  groupApps: [{ id: "notes", name: "Notes", description: "Notes kept by a group" }],
  services: ({ use }) => use(groupsModule),
  routes: [
    route({
      method: "GET",
      path: "/api/v1/groups/{groupId}/notes",
      summary: "A group's notes",
      access: publicAccess,
      params: z.object({ groupId: z.string() }),
      handler: async ({ caller, params, module }) => {
        await module.apps.require(params.groupId, "notes", caller.kind === "user" ? caller.accountId : null);
        return { notes: [] };
      },
    }),
  ],
});

interface AppJson {
  readonly id: string;
  readonly name: string;
  readonly module: string | null;
  readonly available: boolean;
  readonly default_installed: boolean;
  readonly installed?: boolean;
}

describeOnEngines("group applications", (engine) => {
  let kith: TestKith;
  let owner: TestUser;
  let member: TestUser;
  let stranger: TestUser;
  let serial = 0;
  const freshUser = () => kith.createUser(`ga${++serial}`);
  const appsOf = (groupId: string) => `/api/v1/groups/${groupId}/apps`;
  const installedIds = async (groupId: string, token?: string) => {
    const answer = await call(kith, "GET", appsOf(groupId), token);
    expect(answer.status).toBe(200);
    return (answer.body as AppJson[]).map((app) => app.id).sort();
  };

  beforeAll(async () => {
    // Without the events module, so that "calendar" stays a planned application here (the events tests cover it installed).
    kith = await engine.testKith({ modules: [...defaultModules.filter((module) => module !== eventsModule), notesModule] });
    owner = await kith.createUser("gaowner");
    member = await kith.createUser("gamember");
    stranger = await kith.createUser("gastranger");
  });
  afterAll(() => kith.close());

  const groupWithMember = (body: Record<string, unknown> = {}): Promise<GroupJson> => createGroupWithMember(kith, owner, member, body);

  it("lists the catalog to anyone: the modules' applications, and the planned ones as unavailable", async () => {
    const catalog = await call(kith, "GET", "/api/v1/groups/apps");
    expect(catalog.status).toBe(200);
    const byId = new Map((catalog.body as AppJson[]).map((app) => [app.id, app]));
    expect(byId.get("channels")).toMatchObject({ module: "groups", available: true, default_installed: true });
    expect(byId.get("notes")).toMatchObject({ name: "Notes", module: "app-notes", available: true, default_installed: false });
    expect(byId.get("data")).toMatchObject({ module: "platform-data", available: true, default_installed: false });
    for (const planned of ["calendar", "ai-agents"]) {
      expect(byId.get(planned)).toMatchObject({ module: null, available: false, default_installed: false });
    }
  });

  it("has the applications installed by default in a new group, shown to a guest for a public group", async () => {
    const made = await groupWithMember();
    expect(await installedIds(made.id)).toEqual(["channels"]);
  });

  it("installs an application, turning its route on for that group only, and uninstalls it", async () => {
    const made = await groupWithMember();
    const other = await groupWithMember();
    const notes = (groupId: string, token?: string) => call(kith, "GET", `/api/v1/groups/${groupId}/notes`, token);
    const off = await notes(made.id, member.token);
    expect(off.status).toBe(404);
    expect(off.body.code).toBe("group.app_not_installed");

    const installed = await call(kith, "PUT", `${appsOf(made.id)}/notes`, owner.token);
    expect(installed.status).toBe(200);
    expect(installed.body).toMatchObject({ id: "notes", installed: true, changed_at: expect.any(String) });
    expect(await installedIds(made.id, member.token)).toEqual(["channels", "notes"]);
    expect((await notes(made.id, member.token)).body).toEqual({ notes: [] });
    expect((await notes(made.id)).status).toBe(200);
    expect((await notes(other.id, member.token)).status).toBe(404);
    // Installing again changes nothing.
    expect((await call(kith, "PUT", `${appsOf(made.id)}/notes`, owner.token)).status).toBe(200);
    expect(await installedIds(made.id)).toEqual(["channels", "notes"]);

    const uninstalled = await call(kith, "DELETE", `${appsOf(made.id)}/notes`, owner.token);
    expect(uninstalled.status).toBe(200);
    expect(uninstalled.body).toMatchObject({ id: "notes", installed: false });
    expect(await installedIds(made.id)).toEqual(["channels"]);
    expect((await notes(made.id, member.token)).status).toBe(404);
  });

  it("uninstalls an application installed by default, until installed again", async () => {
    const made = await groupWithMember();
    const channels = `/api/v1/groups/${made.id}/channels`;
    expect((await call(kith, "GET", channels, owner.token)).status).toBe(200);
    expect((await call(kith, "DELETE", `${appsOf(made.id)}/channels`, owner.token)).status).toBe(200);
    expect(await installedIds(made.id)).toEqual([]);
    // Its routes answer 404 for that group: the owner's too.
    const off = await call(kith, "GET", channels, owner.token);
    expect(off.status).toBe(404);
    expect(off.body).toMatchObject({ code: "group.app_not_installed" });
    expect(await installedIds((await groupWithMember()).id)).toEqual(["channels"]);
    expect((await call(kith, "PUT", `${appsOf(made.id)}/channels`, owner.token)).status).toBe(200);
    expect(await installedIds(made.id)).toEqual(["channels"]);
    expect((await call(kith, "GET", channels, owner.token)).status).toBe(200);
  });

  it("refuses an application the catalog lacks (404) and a planned one (409)", async () => {
    const made = await groupWithMember();
    const unknown = await call(kith, "PUT", `${appsOf(made.id)}/nope`, owner.token);
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe("group.app_not_found");
    expect((await call(kith, "DELETE", `${appsOf(made.id)}/nope`, owner.token)).status).toBe(404);
    const planned = await call(kith, "PUT", `${appsOf(made.id)}/calendar`, owner.token);
    expect(planned.status).toBe(409);
    expect(planned.body.code).toBe("group.app_unavailable");
    expect(await installedIds(made.id)).toEqual(["channels"]);
  });

  describe("who may install", () => {
    it("answers 401 without credentials", async () => {
      const made = await groupWithMember();
      expect((await call(kith, "PUT", `${appsOf(made.id)}/notes`)).status).toBe(401);
      expect((await call(kith, "DELETE", `${appsOf(made.id)}/channels`)).status).toBe(401);
    });

    it("refuses a member without GroupApps.Manage, and a holder of it in another group only", async () => {
      const made = await groupWithMember();
      const refused = await call(kith, "PUT", `${appsOf(made.id)}/notes`, member.token);
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe("auth.forbidden");
      expect((await call(kith, "DELETE", `${appsOf(made.id)}/channels`, member.token)).status).toBe(403);

      const elsewhere = await freshUser();
      const other = await createGroup(kith, owner.token);
      await giveGrants(kith, elsewhere.account.id, [{ resource: "GroupApps", access: ["Add", "Modify", "Delete"], scope: other.id }]);
      expect((await call(kith, "PUT", `${appsOf(made.id)}/notes`, elsewhere.token)).status).toBe(403);
      expect((await call(kith, "PUT", `${appsOf(other.id)}/notes`, elsewhere.token)).status).toBe(200);
      expect(await installedIds(made.id)).toEqual(["channels"]);
    });

    it("lets the group's admins install", async () => {
      const made = await groupWithMember();
      const roles = await call(kith, "GET", `/api/v1/admin/rbac/roles?scope=${made.id}`, owner.token);
      const admin = roles.body.find((role: { name: string }) => role.name === "Admin");
      expect(admin.permissions).toEqual(expect.arrayContaining([expect.objectContaining({ resource: "GroupApps" })]));
      const assigned = await call(kith, "POST", `/api/v1/admin/rbac/actors/${member.account.id}/roles?scope=${made.id}`, owner.token, {
        roleId: admin.roleId,
      });
      expect(assigned.status).toBe(200);
      expect((await call(kith, "PUT", `${appsOf(made.id)}/notes`, member.token)).status).toBe(200);
    });
  });

  describe("a secret group", () => {
    it("is 404 to a stranger: its applications, installing, and an application's route", async () => {
      const secret = await groupWithMember({ secret: true });
      expect((await call(kith, "PUT", `${appsOf(secret.id)}/notes`, owner.token)).status).toBe(200);
      for (const [method, path] of [
        ["GET", appsOf(secret.id)],
        ["PUT", `${appsOf(secret.id)}/notes`],
        ["DELETE", `${appsOf(secret.id)}/notes`],
        ["GET", `/api/v1/groups/${secret.id}/notes`],
      ] as const) {
        const hidden = await call(kith, method, path, stranger.token);
        expect(hidden.status).toBe(404);
        expect(hidden.body.code).toBe("group.not_found");
      }
      expect((await call(kith, "GET", appsOf(secret.id))).status).toBe(404);
      expect(await installedIds(secret.id, member.token)).toEqual(["channels", "notes"]);
      expect((await call(kith, "GET", `/api/v1/groups/${secret.id}/notes`, member.token)).status).toBe(200);
    });
  });

  it("answers 404 for a group that does not exist", async () => {
    const missing = "gr_00000000000000000000000000";
    expect((await call(kith, "GET", appsOf(missing))).status).toBe(404);
    expect((await call(kith, "GET", `/api/v1/groups/${missing}/notes`)).status).toBe(404);
  });
});
