import type { Kysely } from "kysely";
import { BUILT_IN_ROLES } from "../../domain/resources.js";
import { MonotonicIdGenerator } from "../../memory/monotonic-id-generator.js";
import { systemClock } from "../../memory/system-clock.js";
import { systemRandom } from "../../memory/system-random.js";

/**
 * Seeds the built-in roles (Owner, Admin, Moderator, User) and their
 * permissions. Called by the first numbered migration of every SQL adapter;
 * written with Kysely so one seed serves all engines. The database is typed
 * loosely because a migration runs against the schema of its own time.
 */
// biome-ignore lint/suspicious/noExplicitAny: migrations see the schema as it was then, not today's Database type.
export async function seedBuiltInRoles(db: Kysely<any>): Promise<void> {
  const ids = new MonotonicIdGenerator(systemClock, systemRandom);
  const now = new Date().toISOString();
  for (const role of BUILT_IN_ROLES) {
    const id = ids.next("role");
    await db
      .insertInto("roles")
      .values({ id, name: role.name, description: role.description, scope: "global", built_in: true, created_at: now, updated_at: now })
      .execute();
    for (const grant of role.permissions) {
      await db
        .insertInto("role_permissions")
        .values({ role_id: id, resource: grant.resource, access: JSON.stringify(grant.access) })
        .execute();
    }
  }
}
