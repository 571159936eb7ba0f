import type { Kysely } from "kysely";
import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import type { Database } from "../../ports/storage-schema.js";
import { type GroupRoles, grantsCover } from "../roles/index.js";
import { groupErrors } from "./group-errors.js";
import type { GroupsDb } from "./group-tables-store.js";

/**
 * Refuses (403 group.outranked) a manager's action on a member who holds in
 * the group what the manager does not: a moderator cannot remove an admin,
 * nor the admin's statuses.
 */
export async function assertOutranks(
  roles: GroupRoles,
  db: GroupsDb,
  groupId: string,
  actorGrants: readonly Grant[],
  targetId: string,
): Promise<void> {
  // The same connection, seen with the core's tables only (Kysely's types do not narrow a schema by themselves).
  const targetGrants = await roles.grantsIn(db as unknown as Kysely<Database>, groupId, targetId);
  if (!grantsCover(actorGrants, targetGrants, groupId)) throw new KithError(groupErrors["group.outranked"]);
}
