/**
 * Walks every route of the route table and checks its access rule from the
 * outside: no credentials where they are needed is 401; a user whose roles
 * lack the rule's permissions is 403; a user holding just the grants that
 * satisfy the rule gets through. Everything is derived from the table, so a
 * new route is covered the day it is declared.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnyRoute, ID_PREFIXES, type IdKind, grantsSatisfying, lowestIdAt, requiresCredentials } from "@kith/core";
import type { TestKith } from "@kith/core/testing";
import { giveGrants } from "../support/roles.js";
import { describeOnEngines } from "../support/engines.js";
import { routeTable } from "../../packages/core/src/modules/default-modules.js";

/** A group no test user belongs to. */
const UNRELATED_GROUP = lowestIdAt("group", Date.UTC(2026, 0, 1));
/** The group a request names when a route looks for one. */
const SELECTED_GROUP = lowestIdAt("group", Date.UTC(2026, 0, 2));

type PermissionRoute = AnyRoute & { access: Extract<AnyRoute["access"], { kind: "permission" }> };

const name = (route: AnyRoute): string => `${route.method} ${route.path}`;
const cases = <R extends AnyRoute>(routes: readonly R[]) => routes.map((route) => [name(route), route] as const);

const credentialRoutes = routeTable.filter((route) => requiresCredentials(route.access));
const publicRoutes = routeTable.filter((route) => !requiresCredentials(route.access));
const signedInRoutes = routeTable.filter((route) => route.access.kind === "authenticated");
const permissionRoutes = routeTable.filter((route): route is PermissionRoute => route.access.kind === "permission");
const groupRoutes = permissionRoutes.filter((route) => route.access.group !== undefined);

/** A plausible value for a path parameter: an id of the kind its name says (`reportId`), else a plain word. */
function sampleValue(param: string): string {
  const kind = /^(\w+)Id$/.exec(param)?.[1];
  if (kind && kind in ID_PREFIXES) return lowestIdAt(kind as IdKind, Date.UTC(2026, 0, 1));
  return "sample";
}

/** A request for the route: path parameters filled, `{}` as the body of writes, the group put where the route looks for it. */
function requestFor(route: AnyRoute, group: string | null = null): { path: string; json?: unknown } {
  const selector = route.access.kind === "permission" ? route.access.group : undefined;
  const groupIn = (source: "params" | "query" | "body") => (group && selector?.source === source ? selector.name : null);
  let path = route.path.replace(/\{(\w+)\}/g, (_, param: string) =>
    encodeURIComponent(param === groupIn("params") ? (group as string) : sampleValue(param)),
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
  const freshUser = () => kith.createUser(`walker${++serial}`);

  beforeAll(async () => {
    kith = await engine.testKith();
  });
  afterAll(() => kith.close());

  async function send(route: AnyRoute, token?: string, group: string | null = null): Promise<Response> {
    const { path, json } = requestFor(route, group);
    return kith.request(route.method, path, { ...(token && { token }), ...(json !== undefined && { json }) });
  }

  it("walks a table with routes of every kind the rules below cover", () => {
    expect(credentialRoutes.length).toBeGreaterThan(0);
    expect(publicRoutes.length).toBeGreaterThan(0);
    expect(permissionRoutes.length).toBeGreaterThan(0);
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
      await giveGrants(kith, user.account.id, grantsSatisfying(route.access.rule, UNRELATED_GROUP));
      const response = await send(route, user.token, SELECTED_GROUP);
      expect(response.status).toBe(403);
    });

    it.each(cases(permissionRoutes))("%s lets in a user holding exactly the grants that satisfy its rule", async (_, route) => {
      const user = await freshUser();
      await giveGrants(kith, user.account.id, grantsSatisfying(route.access.rule));
      const response = await send(route, user.token);
      expect([401, 403]).not.toContain(response.status);
    });

    it.each(cases(groupRoutes))("%s lets in a user holding the grants in the group the request names", async (_, route) => {
      const user = await freshUser();
      await giveGrants(kith, user.account.id, grantsSatisfying(route.access.rule, SELECTED_GROUP));
      const response = await send(route, user.token, SELECTED_GROUP);
      expect([401, 403]).not.toContain(response.status);
    });
  });
});
