import { BUILT_IN_ROLES } from "../../domain/resources.js";
import { MonotonicIdGenerator } from "../../memory/monotonic-id-generator.js";
import { systemClock } from "../../memory/system-clock.js";
import { systemRandom } from "../../memory/system-random.js";
import type { RowSpec } from "../../ports/migration-spec.js";

/**
 * The built-in roles (Owner, Admin, Moderator, User) and their permissions,
 * as the rows the first migration inserts. Made on each call: the roles get
 * ids and times of the moment the migration runs.
 */
export function builtInRoleRows(): RowSpec[] {
  const ids = new MonotonicIdGenerator(systemClock, systemRandom);
  const now = new Date().toISOString();
  return BUILT_IN_ROLES.flatMap((role) => {
    const id = ids.next("role");
    return [
      {
        table: "roles",
        values: { id, name: role.name, description: role.description, scope: "global", built_in: true, created_at: now, updated_at: now },
      },
      ...role.permissions.map((grant) => ({
        table: "role_permissions",
        values: { role_id: id, resource: grant.resource, access: JSON.stringify(grant.access) },
      })),
    ];
  });
}
