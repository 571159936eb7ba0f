/**
 * Platform data (the spec's "Platform data"): entries owned by a user, a
 * group or the platform; Data.Manage for the owner on every endpoint (a
 * user's own implicitly, a group's through a role in the group, the
 * platform's through a global grant); ownership that never changes; deletion
 * for good; tags AND-ed; a group's entries as its `data` application.
 */
import type { TestKith, TestUser } from "@kith/core/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { describeOnEngines } from "../support/engines.js";
import { type GroupJson, call, createGroup, createGroupWithMember } from "../support/groups.js";
import { giveGrants } from "../support/roles.js";

const DATA = "/api/v1/data";
const RBAC = "/api/v1/admin/rbac";
const MANAGE = ["Add", "Modify", "Delete"] as const;

interface EntryJson {
  readonly id: string;
  readonly ownerId: string;
  readonly type: string | null;
  readonly tags: readonly string[];
  readonly content: unknown;
  readonly createdAt: string;
  readonly updatedAt: string;
}

describeOnEngines("platform data", (engine) => {
  let kith: TestKith;
  let serial = 0;
  const freshUser = () => kith.createUser(`pd${++serial}`);
  const create = (token: string, body: Record<string, unknown>) => call(kith, "POST", DATA, token, body);
  const list = async (token: string, query = ""): Promise<EntryJson[]> => {
    const answer = await call(kith, "GET", `${DATA}${query}`, token);
    expect(answer.status).toBe(200);
    return answer.body as unknown as EntryJson[];
  };
  const ids = (entries: readonly EntryJson[]) => entries.map((entry) => entry.id);
  const entry = async (token: string, body: Record<string, unknown>): Promise<EntryJson> => {
    const answer = await create(token, body);
    expect(answer.status).toBe(200);
    return answer.body as unknown as EntryJson;
  };
  /** A group of the owner's with the data application installed, and a member who holds nothing in it. */
  const dataGroup = async (owner: TestUser, member: TestUser): Promise<GroupJson> => {
    const group = await createGroupWithMember(kith, owner, member);
    expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/apps/data`, owner.token)).status).toBe(200);
    return group;
  };

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  describe("a user's own entries", () => {
    it("creates, lists, updates and deletes them, holding Data.Manage for them implicitly", async () => {
      const alice = await freshUser();
      const made = await entry(alice.token, { type: "note", tags: ["a", "b", "a"], content: { text: "hello", n: [1, 2] } });
      expect(made).toMatchObject({ ownerId: alice.account.id, type: "note", tags: ["a", "b"], content: { text: "hello", n: [1, 2] } });
      expect(made.id).toMatch(/^da_/);
      const explicit = await entry(alice.token, { ownerId: alice.account.id, content: "just text" });
      expect(explicit).toMatchObject({ ownerId: alice.account.id, type: null, tags: [], content: "just text" });

      expect(ids(await list(alice.token))).toEqual([explicit.id, made.id]);
      expect(ids(await list(alice.token, `?owner=${alice.account.id}`))).toEqual([explicit.id, made.id]);

      const updated = await call(kith, "PUT", `${DATA}/${made.id}`, alice.token, { tags: ["c"], content: { text: "bye" } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ id: made.id, ownerId: alice.account.id, type: "note", tags: ["c"], content: { text: "bye" } });
      const cleared = await call(kith, "PUT", `${DATA}/${made.id}`, alice.token, { type: null, ownerId: alice.account.id });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ type: null, tags: ["c"], content: { text: "bye" } });
      expect(ids(await list(alice.token, "?tags[]=c"))).toEqual([made.id]);
      expect(await list(alice.token, "?tags[]=a")).toEqual([]);

      expect((await call(kith, "DELETE", `${DATA}/${made.id}`, alice.token)).status).toBe(200);
      expect(ids(await list(alice.token))).toEqual([explicit.id]);
      expect(await list(alice.token, "?tags[]=c")).toEqual([]);
    });

    it("keeps them from other users: not listed to them, 403 when they filter by the owner, update or delete", async () => {
      const alice = await freshUser();
      const bob = await freshUser();
      const made = await entry(alice.token, { tags: ["private"], content: { secret: true } });
      await entry(bob.token, { tags: ["private"], content: { mine: true } });
      expect((await list(bob.token)).map((found) => found.ownerId)).toEqual([bob.account.id]);
      expect((await list(bob.token, "?tags[]=private")).map((found) => found.ownerId)).toEqual([bob.account.id]);
      const filtered = await call(kith, "GET", `${DATA}?owner=${alice.account.id}`, bob.token);
      expect(filtered.status).toBe(403);
      expect(filtered.body.code).toBe("auth.forbidden");
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, bob.token, { content: 1 })).status).toBe(403);
      expect((await call(kith, "DELETE", `${DATA}/${made.id}`, bob.token)).status).toBe(403);
      expect((await create(bob.token, { ownerId: alice.account.id, content: {} })).status).toBe(403);
      expect(ids(await list(alice.token))).toEqual([made.id]);
    });

    it("refuses a guest (401) on every endpoint", async () => {
      expect((await call(kith, "GET", DATA)).status).toBe(401);
      expect((await call(kith, "POST", DATA, undefined, { content: {} })).status).toBe(401);
      expect((await call(kith, "PUT", `${DATA}/da_x`, undefined, { content: {} })).status).toBe(401);
      expect((await call(kith, "DELETE", `${DATA}/da_x`)).status).toBe(401);
    });
  });

  describe("ownership and deletion", () => {
    it("refuses a PUT whose ownerId is another owner, changing nothing (409 data.owner_immutable)", async () => {
      const alice = await freshUser();
      const bob = await freshUser();
      const made = await entry(alice.token, { type: "t", content: { v: 1 } });
      for (const ownerId of [bob.account.id, "platform", "gr_0000000000aaaaaaaaaaaaaaaa"]) {
        const refused = await call(kith, "PUT", `${DATA}/${made.id}`, alice.token, { ownerId, content: { v: 2 } });
        expect(refused.status).toBe(409);
        expect(refused.body.code).toBe("data.owner_immutable");
      }
      expect((await list(alice.token))[0]).toMatchObject({ id: made.id, ownerId: alice.account.id, content: { v: 1 } });
    });

    it("deletes for good: the entry is gone from lists, tag queries, updates and a second delete", async () => {
      const alice = await freshUser();
      const made = await entry(alice.token, { type: "gone", tags: ["x", "y"], content: {} });
      expect((await call(kith, "DELETE", `${DATA}/${made.id}`, alice.token)).status).toBe(200);
      expect(await list(alice.token, "?type=gone")).toEqual([]);
      expect(await list(alice.token, "?tags[]=x&tags[]=y")).toEqual([]);
      const again = await call(kith, "DELETE", `${DATA}/${made.id}`, alice.token);
      expect(again.status).toBe(404);
      expect(again.body.code).toBe("data.not_found");
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, alice.token, { content: 1 })).status).toBe(404);
    });

    it("refuses bad input with a 4xx: content too large (413), an owner of no kind (422), bad tags and types (422), no content (400)", async () => {
      const alice = await freshUser();
      const large = await create(alice.token, { content: { text: "x".repeat(70_000) } });
      expect(large.status).toBe(413);
      expect(large.body.code).toBe("data.content_too_large");
      const owner = await create(alice.token, { ownerId: "someone", content: {} });
      expect(owner.status).toBe(422);
      expect(owner.body.code).toBe("data.owner_unknown");
      expect((await create(alice.token, { tags: ["ok", "x".repeat(65)], content: {} })).status).toBe(422);
      expect((await create(alice.token, { tags: Array.from({ length: 21 }, (_, i) => `t${i}`), content: {} })).status).toBe(422);
      expect((await create(alice.token, { type: "a\u0000b", content: {} })).status).toBe(422);
      expect((await create(alice.token, { type: "t" })).status).toBe(400);
      const nul = await create(alice.token, { content: { text: "a\u0000b" } });
      expect(nul.status).toBe(422);
      expect((await call(kith, "GET", `${DATA}?tags[]=${encodeURIComponent("a\u0000")}`, alice.token)).status).toBe(422);
      expect((await call(kith, "GET", `${DATA}?owner=nobody`, alice.token)).status).toBe(422);
    });
  });

  describe("tags", () => {
    it("AND-s several tags, with the type and the owner filters, newest first, paged with Link", async () => {
      const alice = await freshUser();
      const ab = await entry(alice.token, { tags: ["a", "b"], content: 1 });
      await entry(alice.token, { tags: ["a"], content: 2 });
      await entry(alice.token, { tags: ["b", "c"], content: 3 });
      const abc = await entry(alice.token, { tags: ["c", "b", "a"], content: 4 });
      const abTyped = await entry(alice.token, { type: "kind", tags: ["a", "b"], content: 5 });

      expect(ids(await list(alice.token, "?tags[]=a&tags[]=b"))).toEqual([abTyped.id, abc.id, ab.id]);
      expect(ids(await list(alice.token, "?tags[]=a&tags[]=b&tags[]=c"))).toEqual([abc.id]);
      expect(ids(await list(alice.token, `?tags[]=b&tags[]=a&type=kind&owner=${alice.account.id}`))).toEqual([abTyped.id]);
      expect(await list(alice.token, "?tags[]=a&tags[]=nope")).toEqual([]);

      const first = await call(kith, "GET", `${DATA}?tags[]=a&tags[]=b&limit=2`, alice.token);
      expect(ids(first.body as unknown as EntryJson[])).toEqual([abTyped.id, abc.id]);
      const response = await kith.request("GET", `${DATA}?tags[]=a&tags[]=b&limit=2`, { token: alice.token });
      const next = /<([^>]+)>; rel="next"/.exec(response.headers.get("link") ?? "")?.[1];
      expect(next).toContain(`max_id=${abc.id}`);
      const url = new URL(next as string);
      expect(ids(await list(alice.token, url.search))).toEqual([ab.id]);
      expect(ids(await list(alice.token, `?tags[]=a&tags[]=b&min_id=${ab.id}&limit=1`))).toEqual([abc.id]);
    });
  });

  describe("a group's entries, its data application", () => {
    it("round trip: the catalog offers the application, a group installs it, its managers keep entries there", async () => {
      const owner = await freshUser();
      const member = await freshUser();
      const catalog = await call(kith, "GET", "/api/v1/groups/apps");
      expect((catalog.body as unknown as { id: string }[]).find((app) => app.id === "data")).toMatchObject({
        module: "platform-data",
        available: true,
        default_installed: false,
      });
      const group = await createGroupWithMember(kith, owner, member);
      const before = await create(owner.token, { ownerId: group.id, content: {} });
      expect(before.status).toBe(404);
      expect(before.body.code).toBe("group.app_not_installed");

      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/apps/data`, owner.token)).status).toBe(200);
      // The group's Owner role holds Data in the group's scope.
      const made = await entry(owner.token, { ownerId: group.id, type: "poll-state", tags: ["open"], content: { votes: 0 } });
      expect(made.ownerId).toBe(group.id);
      expect(ids(await list(owner.token, `?owner=${group.id}&tags[]=open`))).toEqual([made.id]);
      expect(ids(await list(owner.token))).toContain(made.id);
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, owner.token, { content: { votes: 1 } })).body).toMatchObject({
        content: { votes: 1 },
      });

      // Uninstalled, the group's entries are kept but not served.
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}/apps/data`, owner.token)).status).toBe(200);
      const off = await call(kith, "GET", `${DATA}?owner=${group.id}`, owner.token);
      expect(off.status).toBe(404);
      expect(off.body.code).toBe("group.app_not_installed");
      expect(ids(await list(owner.token))).not.toContain(made.id);
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, owner.token, { content: 2 })).status).toBe(404);
      expect((await call(kith, "PUT", `/api/v1/groups/${group.id}/apps/data`, owner.token)).status).toBe(200);
      expect((await list(owner.token, `?owner=${group.id}`))[0]).toMatchObject({ id: made.id, content: { votes: 1 } });
    });

    it("lets a member in through a group role holding Data.Manage, made with RBAC's group scope; not without one", async () => {
      const owner = await freshUser();
      const member = await freshUser();
      const group = await dataGroup(owner, member);
      const made = await entry(owner.token, { ownerId: group.id, content: { n: 1 } });
      expect((await call(kith, "GET", `${DATA}?owner=${group.id}`, member.token)).status).toBe(403);
      expect((await create(member.token, { ownerId: group.id, content: {} })).status).toBe(403);
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, member.token, { content: 2 })).status).toBe(403);
      expect((await call(kith, "DELETE", `${DATA}/${made.id}`, member.token)).status).toBe(403);
      expect(ids(await list(member.token))).toEqual([]);

      const role = await call(kith, "POST", `${RBAC}/roles`, owner.token, {
        name: "Data keepers",
        scope: group.id,
        permissions: [{ resource: "Data", access: [...MANAGE] }],
      });
      expect(role.status).toBe(201);
      const given = await call(kith, "POST", `${RBAC}/actors/${member.account.id}/roles?scope=${group.id}`, owner.token, {
        roleId: role.body.roleId,
      });
      expect(given.status).toBe(200);

      expect(ids(await list(member.token))).toEqual([made.id]);
      const mine = await entry(member.token, { ownerId: group.id, content: { n: 2 } });
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, member.token, { content: { n: 3 } })).status).toBe(200);
      expect((await call(kith, "DELETE", `${DATA}/${mine.id}`, member.token)).status).toBe(200);
      expect(ids(await list(member.token, `?owner=${group.id}`))).toEqual([made.id]);
    });

    it("does not let a grant held in one group reach another group's entries", async () => {
      const owner = await freshUser();
      const member = await freshUser();
      const mine = await dataGroup(owner, member);
      const other = await dataGroup(await freshUser(), await freshUser());
      const otherOwner = other;
      await giveGrants(kith, member.account.id, [{ resource: "Data", access: [...MANAGE], scope: mine.id }]);
      const theirs = await call(kith, "GET", `${DATA}?owner=${otherOwner.id}`, member.token);
      expect(theirs.status).toBe(403);
      expect((await create(member.token, { ownerId: other.id, content: {} })).status).toBe(403);
      expect((await create(member.token, { ownerId: mine.id, content: {} })).status).toBe(200);
      // The other group's own entry, made by its owner: out of the member's reach.
      const otherGroupOwner = await freshUser();
      const third = await dataGroup(otherGroupOwner, await freshUser());
      const foreign = await entry(otherGroupOwner.token, { ownerId: third.id, content: {} });
      expect((await call(kith, "PUT", `${DATA}/${foreign.id}`, member.token, { content: 1 })).status).toBe(403);
      expect((await call(kith, "DELETE", `${DATA}/${foreign.id}`, member.token)).status).toBe(403);
      expect((await list(member.token)).every((found) => found.ownerId === mine.id || found.ownerId === member.account.id)).toBe(true);
    });

    it("deletes a group's entries with the group", async () => {
      const owner = await freshUser();
      const admin = await freshUser();
      await giveGrants(kith, admin.account.id, [{ resource: "Data", access: [...MANAGE], scope: "global" }]);
      const group = await dataGroup(owner, await freshUser());
      const made = await entry(owner.token, { ownerId: group.id, tags: ["doomed"], content: {} });
      expect(ids(await list(admin.token, "?tags[]=doomed"))).toEqual([made.id]);
      expect((await call(kith, "DELETE", `/api/v1/groups/${group.id}`, owner.token)).status).toBe(200);
      await vi.waitFor(async () => expect(await list(admin.token, "?tags[]=doomed")).toEqual([]));
      expect((await call(kith, "PUT", `${DATA}/${made.id}`, admin.token, { content: 1 })).status).toBe(404);
    });

    it("refuses a group role a server-wide resource, and accepts Data in it", async () => {
      const owner = await freshUser();
      const group = await createGroup(kith, owner.token);
      const refused = await call(kith, "POST", `${RBAC}/roles`, owner.token, {
        name: "Too wide",
        scope: group.id,
        permissions: [{ resource: "Users", access: ["Read"] }],
      });
      expect(refused.status).toBe(422);
      expect(refused.body.code).toBe("role.invalid");
      const accepted = await call(kith, "POST", `${RBAC}/roles`, owner.token, {
        name: "Data readers",
        scope: group.id,
        permissions: [{ resource: "Data", access: ["Read"] }],
      });
      expect(accepted.status).toBe(201);
    });
  });

  describe("the platform's entries", () => {
    it("need a global grant, which also reaches every owner's entries", async () => {
      const admin = await freshUser();
      const alice = await freshUser();
      await giveGrants(kith, admin.account.id, [{ resource: "Data", access: [...MANAGE], scope: "global" }]);
      expect((await create(alice.token, { ownerId: "platform", content: {} })).status).toBe(403);
      expect((await call(kith, "GET", `${DATA}?owner=platform`, alice.token)).status).toBe(403);

      const platform = await entry(admin.token, { ownerId: "platform", type: "config", tags: ["site"], content: { theme: "dark" } });
      expect(platform.ownerId).toBe("platform");
      const alices = await entry(alice.token, { tags: ["site"], content: {} });
      expect(ids(await list(admin.token, "?owner=platform"))).toEqual([platform.id]);
      expect(ids(await list(admin.token, "?tags[]=site"))).toEqual(expect.arrayContaining([platform.id, alices.id]));
      expect(ids(await list(alice.token, "?tags[]=site"))).toEqual([alices.id]);
      expect((await call(kith, "PUT", `${DATA}/${alices.id}`, admin.token, { tags: ["site", "seen"] })).status).toBe(200);
      expect((await call(kith, "PUT", `${DATA}/${platform.id}`, alice.token, { content: {} })).status).toBe(403);
      expect((await call(kith, "DELETE", `${DATA}/${platform.id}`, admin.token)).status).toBe(200);
      expect(await list(admin.token, "?owner=platform")).toEqual([]);
      const missing = await create(admin.token, { ownerId: "us_0000000000aaaaaaaaaaaaaaaa", content: {} });
      expect(missing.status).toBe(404);
    });
  });
});
