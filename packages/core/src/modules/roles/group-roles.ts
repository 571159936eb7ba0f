import type { Kysely } from "kysely";
import { type Grant, parsePermissionName } from "../../domain/permissions.js";
import { GROUP_BUILT_IN_ROLES } from "../../domain/resources.js";
import type { Database } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import {
  type GroupRoleRef,
  deleteGroupAssignments,
  deleteGroupRoleRows,
  findGroupBuiltInRole,
  groupGrantsOfActor,
  groupHoldersOf,
  groupRolesOfActors,
  rolesOfActorInGroups,
  holdersOfRole,
  holdsRole,
  insertAssignments,
  insertGroupRoles,
} from "./group-roles-store.js";

export type { GroupRoleRef };

const OWNER = "Owner";
const MEMBER = "Member";

/**
 * The roles of groups, in RBAC's group scope: every group gets its own
 * built-in Owner, Admin, Moderator and Member roles when it is made, its
 * members hold them, and a group's permission checks evaluate them (a
 * grant held in another group does not count there). The methods that
 * change rows take the caller's transaction, so that a membership and its
 * roles change together.
 */
export class GroupRoles {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "ids" | "clock">) {}

  /** Makes the group's built-in roles and gives its owner the Owner and Member roles. */
  async createFor(db: Kysely<Database>, groupId: string, ownerId: string): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    const roles = GROUP_BUILT_IN_ROLES.map((role) => ({ ...role, id: this.deps.ids.next("role") }));
    await insertGroupRoles(db, groupId, roles, now);
    const owned = roles.filter((role) => role.name === OWNER || role.name === MEMBER).map((role) => role.id);
    await insertAssignments(db, ownerId, owned, now);
  }

  /** Gives a new member the group's Member role. */
  async addMember(db: Kysely<Database>, groupId: string, accountId: string): Promise<void> {
    const member = await findGroupBuiltInRole(db, groupId, MEMBER);
    if (member) await insertAssignments(db, accountId, [member], this.deps.clock.now().toISOString());
  }

  /** Takes every role of the group from someone who leaves it, or is removed or banned. */
  async removeMember(db: Kysely<Database>, groupId: string, accountId: string): Promise<void> {
    await deleteGroupAssignments(db, groupId, accountId);
  }

  /** Deletes the group's roles with the group. */
  async deleteFor(db: Kysely<Database>, groupId: string): Promise<void> {
    await deleteGroupRoleRows(db, groupId);
  }

  /** Whether the account holds the group's Owner role. */
  async isOwner(db: Kysely<Database>, groupId: string, accountId: string): Promise<boolean> {
    const owner = await findGroupBuiltInRole(db, groupId, OWNER);
    return owner !== null && (await holdsRole(db, accountId, owner));
  }

  /** How many hold the group's Owner role. */
  async ownerCount(db: Kysely<Database>, groupId: string): Promise<number> {
    const owner = await findGroupBuiltInRole(db, groupId, OWNER);
    return owner === null ? 0 : holdersOfRole(db, owner);
  }

  /** The group's roles each account holds. */
  rolesOf(groupId: string, accountIds: readonly string[]): Promise<Map<string, GroupRoleRef[]>> {
    return groupRolesOfActors(this.deps.storage.db, groupId, accountIds);
  }

  /** The roles the account holds in each of the groups. */
  rolesIn(accountId: string, groupIds: readonly string[]): Promise<Map<string, GroupRoleRef[]>> {
    return rolesOfActorInGroups(this.deps.storage.db, accountId, groupIds);
  }

  /** Who holds a permission (`GroupMembers.Manage`) through the group's own roles: whom to tell of what needs it. */
  holdersOf(groupId: string, permission: string): Promise<string[]> {
    const { resource, requires } = parsePermissionName(permission);
    return groupHoldersOf(this.deps.storage.db, groupId, resource, requires);
  }

  /** What the account may do in the group through the group's own roles (global roles not included). */
  grantsIn(db: Kysely<Database>, groupId: string, accountId: string): Promise<Grant[]> {
    return groupGrantsOfActor(db, groupId, accountId);
  }
}
