import type { Grant, RoleScope } from "@kith/core";
import type { TestKith } from "@kith/core/testing";

/**
 * Gives an account a custom role holding exactly these grants, written to
 * the database as an administrator's role would be: one role per scope, one
 * permission row per resource (access types of the same resource merged).
 */
export async function giveGrants(kith: TestKith, accountId: string, grants: readonly Grant[]): Promise<void> {
  const now = kith.clock.now().toISOString();
  const byScope = new Map<RoleScope, Map<string, Set<string>>>();
  for (const grant of grants) {
    const resources = byScope.get(grant.scope) ?? new Map<string, Set<string>>();
    const access = resources.get(grant.resource) ?? new Set<string>();
    for (const type of grant.access) access.add(type);
    resources.set(grant.resource, access);
    byScope.set(grant.scope, resources);
  }
  for (const [scope, resources] of byScope) {
    const roleId = kith.ids.next("role");
    await kith.storage.db
      .insertInto("roles")
      .values({ id: roleId, name: `Custom ${roleId}`, description: null, scope, built_in: false, created_at: now, updated_at: now })
      .execute();
    for (const [resource, access] of resources) {
      await kith.storage.db
        .insertInto("role_permissions")
        .values({ role_id: roleId, resource, access: JSON.stringify([...access]) })
        .execute();
    }
    await kith.storage.db
      .insertInto("actor_roles")
      .values({ actor_id: accountId, role_id: roleId, created_at: now, updated_at: now })
      .execute();
  }
}
