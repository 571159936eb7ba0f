/**
 * Walks every route of the route table and checks its access rule from the
 * outside: no credentials where they are needed is 401; a user whose roles
 * lack the rule's permissions is 403; a user holding just the grants that
 * satisfy the rule gets through. Everything is derived from the table, so a
 * new route is covered the day it is declared.
 *
 * A route that names a group in its path (`{groupId}`) answers a refused
 * caller 404 when the group is not visible to it (a secret group does not
 * exist to non-members), so those routes are walked on real, public groups:
 * made once for the refusals, and afresh for each caller let in, whose
 * request may change or delete its group.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnyRoute, ID_PREFIXES, type IdKind, grantsSatisfying, lowestIdAt, requiresCredentials } from "@kith/core";
import type { TestKith, TestUser } from "@kith/core/testing";
import { giveGrants } from "../support/roles.js";
import { createGroup } from "../support/groups.js";
import { describeOnEngines } from "../support/engines.js";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";

/** Groups of the walk: an unrelated one, and the one a request names when a route looks for one. */
interface WalkGroups {
  readonly unrelated: string;
  readonly selected: string;
}

type PermissionRoute = AnyRoute & { access: Extract<AnyRoute["access"], { kind: "permission" }> };

const name = (route: AnyRoute): string => `${route.method} ${route.path}`;
const cases = <R extends AnyRoute>(routes: readonly R[]) => routes.map((route) => [name(route), route] as const);

const credentialRoutes = routeTable.filter((route) => requiresCredentials(route.access));
const publicRoutes = routeTable.filter((route) => !requiresCredentials(route.access));
const signedInRoutes = routeTable.filter((route) => route.access.kind === "authenticated");
const permissionRoutes = routeTable.filter((route): route is PermissionRoute => route.access.kind === "permission");
const groupRoutes = permissionRoutes.filter((route) => route.access.group !== undefined);
/** Routes that tell a refused caller what they name does not exist, when the caller may not see it. */
const concealingRoutes = permissionRoutes.filter((route) => route.whenForbidden !== undefined && route.path.includes("{groupId}"));

/** A plausible value for a path parameter: an id of the kind its name says (`reportId`), else a plain word. */
function sampleValue(param: string, groups: WalkGroups): string {
  if (param === "groupId") return groups.unrelated;
  const kind = /^(\w+)Id$/.exec(param)?.[1];
  if (kind && kind in ID_PREFIXES) return lowestIdAt(kind as IdKind, Date.UTC(2026, 0, 1));
  return "sample";
}

/** A request for the route: path parameters filled, `{}` as the body of writes, the group put where the route looks for it. */
function requestFor(route: AnyRoute, groups: WalkGroups, group: string | null = null): { path: string; json?: unknown } {
  const selector = route.access.kind === "permission" ? route.access.group : undefined;
  const groupIn = (source: "params" | "query" | "body") => (group && selector?.source === source ? selector.name : null);
  let path = route.path.replace(/\{(\w+)\}/g, (_, param: string) =>
    encodeURIComponent(param === groupIn("params") ? (group as string) : sampleValue(param, groups)),
  );
  const queryName = groupIn("query");
  if (queryName) path += `?${new URLSearchParams({ [queryName]: group as string })}`;
  if (route.method === "GET") return { path };
  const bodyName = groupIn("body");
  return { path, json: bodyName ? { [bodyName]: group } : {} };
}

describeOnEngines("route walk", (engine) => {
  let kith: TestKith;
  let serial = 0;
  let groupOwner: TestUser;
  let shared: WalkGroups;
  const freshUser = () => kith.createUser(`walker${++serial}`);
  const freshGroups = async (): Promise<WalkGroups> => ({
    unrelated: (await createGroup(kith, groupOwner.token)).id,
    selected: (await createGroup(kith, groupOwner.token)).id,
  });

  beforeAll(async () => {
    kith = await engine.testKith();
    groupOwner = await kith.createUser("walk_group_owner");
    shared = await freshGroups();
  });
  afterAll(() => kith.close());

  /** Groups for a caller let in: fresh ones when the route names a group in its path, as its request may change it. */
  const groupsLetIn = async (route: AnyRoute): Promise<WalkGroups> => (route.path.includes("{groupId}") ? freshGroups() : shared);

  async function send(route: AnyRoute, token?: string, group: string | null = null, groups: WalkGroups = shared): Promise<Response> {
    const { path, json } = requestFor(route, groups, group);
    return kith.request(route.method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
  }

  it("walks a table with routes of every kind the rules below cover", () => {
    expect(credentialRoutes.length).toBeGreaterThan(0);
    expect(publicRoutes.length).toBeGreaterThan(0);
    expect(permissionRoutes.length).toBeGreaterThan(0);
    expect(concealingRoutes.length).toBeGreaterThan(0);
  });

  describe("without credentials", () => {
    it.each(cases(credentialRoutes))("%s answers 401 in the error format", async (_, route) => {
      const response = await send(route);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: expect.any(String), code: "auth.unauthenticated" });
    });

    it.each(cases(publicRoutes))("%s does not answer 401", async (_, route) => {
      const response = await send(route);
      expect(response.status).not.toBe(401);
    });
  });

  describe("as a signed-in user", () => {
    it.each(cases(signedInRoutes))("%s lets any signed-in user in", async (_, route) => {
      const user = await freshUser();
      const response = await send(route, user.token);
      expect([401, 403]).not.toContain(response.status);
    });
  });

  describe("permissions", () => {
    it.each(cases(permissionRoutes))("%s answers 403 to a user whose roles lack the permission", async (_, route) => {
      const user = await freshUser();
      const response = await send(route, user.token);
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ code: "auth.forbidden" });
    });

    it.each(cases(permissionRoutes))("%s answers 403 to a user holding the permission only in an unrelated group", async (_, route) => {
      const user = await freshUser();
      await giveGrants(kith, user.account.id, grantsSatisfying(route.access.rule, shared.unrelated));
      const response = await send(route, user.token, shared.selected);
      expect(response.status).toBe(403);
    });

    it.each(cases(permissionRoutes))("%s lets in a user holding exactly the grants that satisfy its rule", async (_, route) => {
      const user = await freshUser();
      await giveGrants(kith, user.account.id, grantsSatisfying(route.access.rule));
      const response = await send(route, user.token, null, await groupsLetIn(route));
      expect([401, 403]).not.toContain(response.status);
    });

    it.each(cases(concealingRoutes))("%s answers 404, not 403, to a refused user who may not see its group", async (_, route) => {
      const user = await freshUser();
      const secret = (await createGroup(kith, groupOwner.token, { secret: true })).id;
      const response = await send(route, user.token, null, { unrelated: secret, selected: secret });
      expect(response.status).toBe(404);
    });

    it.each(cases(groupRoutes))("%s lets in a user holding the grants in the group the request names", async (_, route) => {
      const user = await freshUser();
      const groups = await groupsLetIn(route);
      await giveGrants(kith, user.account.id, grantsSatisfying(route.access.rule, groups.selected));
      const response = await send(route, user.token, groups.selected, groups);
      expect([401, 403]).not.toContain(response.status);
    });
  });
});
