import { KithError } from "../../domain/errors.js";
import { ACCESS_TYPES, type AccessType, type Grant, holdsPermission } from "../../domain/permissions.js";
import { RESOURCES } from "../../domain/resources.js";
import {
  type StoredAssignment,
  type StoredPermission,
  type StoredRole,
  actorExists,
  assignmentsOfActor,
  assignmentsOfRole,
  countAssignments,
  deleteAssignment,
  deleteRoleRow,
  findAssignment,
  findRoleWithPermissions,
  insertAssignment,
  insertRole,
  listRolesWithPermissions,
  replaceRolePermissions,
  updateRoleRow,
} from "./rbac-store.js";
import { findRoleByName } from "./roles-store.js";
import { type Database, toBool } from "../../ports/storage-schema.js";
import type { Kysely } from "kysely";
import type { ServiceDeps } from "../service-deps.js";
import type { DomainEvents } from "../../platform/events/domain-events.js";

/** A role as the RBAC administration shows it. */
export interface RoleView {
  readonly roleId: string;
  readonly name: string;
  readonly description: string | null;
  readonly scope: string;
  readonly builtIn: boolean;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly permissions: readonly StoredPermission[];
}

export type AssignmentView = StoredAssignment;

/** A permission as a caller writes it: resource and access types, unchecked. */
export interface PermissionInput {
  readonly resource: string;
  readonly access: readonly string[];
}

export interface RoleInput {
  readonly name: string;
  readonly description?: string | null;
  readonly scope: string;
  readonly permissions: readonly PermissionInput[];
}

export interface RoleChanges {
  readonly name?: string;
  readonly description?: string | null;
  readonly permissions?: readonly PermissionInput[];
}

/** The configuration the RBAC administration offers: resources, access types and how permission names map onto them. */
export interface RbacConfig {
  readonly resources: readonly { readonly name: string; readonly description: string; readonly groupScoped: boolean }[];
  readonly accessTypes: readonly AccessType[];
  readonly scopes: readonly string[];
  readonly actions: Readonly<Record<string, readonly AccessType[]>>;
  readonly bareName: string;
}

export const GROUP_ID_PATTERN = /^gr_[0-9a-z]{26}$/;
const OWNER = "owner";
const RESOURCE_NAMES: ReadonlySet<string> = new Set(RESOURCES.map((resource) => resource.name));
const GROUP_SCOPED: ReadonlySet<string> = new Set(RESOURCES.filter((resource) => resource.groupScoped).map((resource) => resource.name));

/**
 * Resources a group-scoped role may hold: those that mean something inside
 * one group (its administration, the data it owns); the server's own
 * (Users, Roles, Jobs, ...) only in global roles.
 */
export function isGroupResource(resource: string): boolean {
  return GROUP_SCOPED.has(resource);
}

/** The server's Owner role, or a group's: built in, always holding every permission of its scope, never left without a holder. */
function isOwnerRole(role: StoredRole): boolean {
  return toBool(role.row.built_in) && role.row.name.toLowerCase() === OWNER;
}

function toView(role: StoredRole): RoleView {
  return {
    roleId: role.row.id,
    name: role.row.name,
    description: role.row.description,
    scope: role.row.scope,
    builtIn: toBool(role.row.built_in),
    createdAt: role.row.created_at,
    updatedAt: role.row.updated_at,
    permissions: role.permissions,
  };
}

function invalid(message: string, field?: string): KithError {
  return new KithError("role.invalid", { message, details: [{ ...(field && { field }), message }] });
}

/** Validates a scope: 'global' or a group id. */
export function checkScope(scope: string): string {
  if (scope === "global" || GROUP_ID_PATTERN.test(scope)) return scope;
  throw invalid("A role's scope is 'global' or a group id (gr_...)", "scope");
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > 100) throw invalid("A role's name has 1 to 100 characters", "name");
  return trimmed;
}

/** Checks and normalises permissions: known resources and access types, one entry per resource, group resources only in group scope. */
export function normalizePermissions(permissions: readonly PermissionInput[], scope: string): StoredPermission[] {
  const merged = new Map<string, Set<AccessType>>();
  permissions.forEach((permission, index) => {
    if (!RESOURCE_NAMES.has(permission.resource))
      throw invalid(`Unknown resource: ${permission.resource}`, `permissions.${index}.resource`);
    if (scope !== "global" && !isGroupResource(permission.resource)) {
      throw invalid(`A group-scoped role may not hold the server-wide resource ${permission.resource}`, `permissions.${index}.resource`);
    }
    if (permission.access.length === 0) throw invalid("A permission needs at least one access type", `permissions.${index}.access`);
    const access = merged.get(permission.resource) ?? new Set<AccessType>();
    for (const type of permission.access) {
      if (!(ACCESS_TYPES as readonly string[]).includes(type)) throw invalid(`Unknown access type: ${type}`, `permissions.${index}.access`);
      access.add(type as AccessType);
    }
    merged.set(permission.resource, access);
  });
  return [...merged].map(([resource, access]) => ({ resource, access: ACCESS_TYPES.filter((type) => access.has(type)) }));
}

/**
 * Whether grants cover every permission of a role in its scope: global grants
 * count everywhere, group grants only for a role of that group.
 */
export function grantsCover(grants: readonly Grant[], permissions: readonly StoredPermission[], scope: string): boolean {
  return permissions.every((permission) =>
    permission.access.every((access) =>
      grants.some(
        (grant) =>
          grant.resource === permission.resource && (grant.scope === "global" || grant.scope === scope) && grant.access.includes(access),
      ),
    ),
  );
}

function guardEscalation(grants: readonly Grant[], permissions: readonly StoredPermission[], scope: string): void {
  if (!grantsCover(grants, permissions, scope)) throw new KithError("role.escalation");
}

/** Refuses to give a group's role to someone who may not hold it (a non-member); set by the module that keeps groups. */
export type GroupAssignmentGuard = (db: Kysely<Database>, groupId: string, actorId: string) => Promise<void>;

/**
 * Roles, their permissions and their assignment to actors. Every change
 * takes the acting caller's grants: nobody may make, change, grant or take
 * away a role holding permissions they do not hold themselves.
 *
 * A request works in the server's scope or in one group's (`within`, a
 * group id): in a group's, only that group's roles are seen and touched,
 * and the group's own GroupRoles grants let its admins in.
 */
export class RoleService {
  #groupAssignmentGuard: GroupAssignmentGuard | null = null;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">,
    private readonly events: DomainEvents,
  ) {}

  /**
   * Tells the audit log of a change of a role (`role.create`) or of who holds it (`role.assign`, the account the
   * target), in the role's scope: the server's, or its group's. `actorId` null: the server did.
   */
  async #acted(actingId: string | null, action: string, role: { id: string; name: string; scope: string }, accountId?: string) {
    const global = role.scope === "global";
    await this.events.emit({
      type: "moderation.action",
      actorId: actingId,
      action,
      resource: global ? "Roles" : "GroupRoles",
      groupId: global ? null : role.scope,
      ...(accountId === undefined ? { targetType: "role", targetId: role.id } : { targetType: "account", targetId: accountId }),
      text: role.name,
    });
  }

  /** Sets the check run before a group's role is given to an actor. */
  guardGroupAssignments(guard: GroupAssignmentGuard): void {
    this.#groupAssignmentGuard = guard;
  }

  /**
   * The scope a request works in: the group its `scope` names, or the
   * server's (none, or 'global'). The routes let in GroupRoles holders too;
   * in the server's scope only Roles grants count, for a GroupRoles grant,
   * even a global one, manages groups' roles, not the server's.
   */
  scopeOfRequest(grants: readonly Grant[], scope: string | undefined, need: "read" | "manage"): string | null {
    if (scope !== undefined && scope !== "global") return checkScope(scope);
    const names = need === "read" ? ["Roles.Read", "Roles.Manage"] : ["Roles.Manage"];
    if (!names.some((name) => holdsPermission(grants, name))) throw new KithError("auth.forbidden");
    return null;
  }

  config(): RbacConfig {
    return {
      resources: RESOURCES.map((resource) => ({
        name: resource.name,
        description: resource.description,
        groupScoped: isGroupResource(resource.name),
      })),
      accessTypes: [...ACCESS_TYPES],
      scopes: ["global", "gr_<group id>"],
      actions: { Read: ["Read"], Manage: ["Add", "Modify", "Delete"], Invite: ["Add"] },
      bareName: "A bare resource name (e.g. AIProviders) holds with any access type",
    };
  }

  /** Roles of one scope (`scope`), or of every scope; a request within a group sees that group's only. */
  async list(scope?: string, within: string | null = null): Promise<RoleView[]> {
    if (scope !== undefined) checkScope(scope);
    if (within !== null && scope !== undefined && scope !== within) return [];
    return (await listRolesWithPermissions(this.deps.storage.db, within ?? scope)).map(toView);
  }

  async #role(roleId: string, within: string | null, db: Kysely<Database> = this.deps.storage.db): Promise<StoredRole> {
    const role = await findRoleWithPermissions(db, roleId);
    // A request within a group does not learn of other scopes' roles.
    if (!role || (within !== null && role.row.scope !== within)) throw new KithError("role.not_found");
    return role;
  }

  async get(roleId: string, within: string | null = null): Promise<RoleView> {
    return toView(await this.#role(roleId, within));
  }

  async create(
    grants: readonly Grant[],
    input: RoleInput,
    within: string | null = null,
    actingId: string | null = null,
  ): Promise<RoleView> {
    const scope = checkScope(within ?? input.scope);
    if (within !== null && input.scope !== within && input.scope !== "global") {
      throw invalid("A request within a group makes roles of that group", "scope");
    }
    const name = checkName(input.name);
    const permissions = normalizePermissions(input.permissions, scope);
    guardEscalation(grants, permissions, scope);
    const id = this.deps.ids.next("role");
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      if (await findRoleByName(trx, name, scope)) throw new KithError("role.name_taken");
      await insertRole(trx, { id, name, description: input.description ?? null, scope, now });
      await replaceRolePermissions(trx, id, permissions);
    });
    await this.#acted(actingId, "role.create", { id, name, scope });
    return this.get(id);
  }

  async update(
    grants: readonly Grant[],
    roleId: string,
    changes: RoleChanges,
    within: string | null = null,
    actingId: string | null = null,
  ): Promise<RoleView> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      const role = await this.#role(roleId, within, trx);
      const builtIn = toBool(role.row.built_in);
      const name = changes.name === undefined ? undefined : checkName(changes.name);
      if (name !== undefined && name !== role.row.name) {
        if (builtIn) throw new KithError("role.built_in", { message: "A built-in role's name cannot change" });
        const clash = await findRoleByName(trx, name, role.row.scope);
        if (clash && clash.id !== roleId) throw new KithError("role.name_taken");
      }
      guardEscalation(grants, role.permissions, role.row.scope);
      if (changes.permissions !== undefined) {
        if (isOwnerRole(role)) throw new KithError("role.built_in", { message: "The Owner role always holds every permission" });
        const permissions = normalizePermissions(changes.permissions, role.row.scope);
        guardEscalation(grants, permissions, role.row.scope);
        await replaceRolePermissions(trx, roleId, permissions);
      }
      await updateRoleRow(trx, roleId, {
        ...(name !== undefined && { name }),
        ...(changes.description !== undefined && { description: changes.description }),
        now,
      });
    });
    const updated = await this.get(roleId);
    await this.#acted(actingId, "role.update", { id: roleId, name: updated.name, scope: updated.scope });
    return updated;
  }

  async replacePermissions(
    grants: readonly Grant[],
    roleId: string,
    permissions: readonly PermissionInput[],
    within: string | null = null,
    actingId: string | null = null,
  ): Promise<RoleView> {
    return this.update(grants, roleId, { permissions }, within, actingId);
  }

  async delete(grants: readonly Grant[], roleId: string, within: string | null = null, actingId: string | null = null): Promise<void> {
    const role = await this.deps.storage.transaction(async (trx) => {
      const role = await this.#role(roleId, within, trx);
      if (toBool(role.row.built_in)) throw new KithError("role.built_in", { message: "Built-in roles cannot be deleted" });
      guardEscalation(grants, role.permissions, role.row.scope);
      await deleteRoleRow(trx, roleId);
      return role.row;
    });
    await this.#acted(actingId, "role.delete", role);
  }

  async assignmentsOfRole(roleId: string, within: string | null = null): Promise<AssignmentView[]> {
    await this.#role(roleId, within);
    return assignmentsOfRole(this.deps.storage.db, roleId);
  }

  /** The actor's assignments; a request within a group sees those of the group's roles only. */
  async assignmentsOfActor(actorId: string, within: string | null = null): Promise<AssignmentView[]> {
    if (!(await actorExists(this.deps.storage.db, actorId))) throw new KithError("account.not_found");
    const assignments = await assignmentsOfActor(this.deps.storage.db, actorId);
    if (within === null) return assignments;
    const groupRoles = new Set((await listRolesWithPermissions(this.deps.storage.db, within)).map((role) => role.row.id));
    return assignments.filter((assignment) => groupRoles.has(assignment.roleId));
  }

  /** Assigns a role to an actor; assigning it again changes nothing and returns the existing assignment. */
  async assign(
    grants: readonly Grant[],
    actorId: string,
    roleId: string,
    within: string | null = null,
    actingId: string | null = null,
  ): Promise<AssignmentView> {
    const now = this.deps.clock.now().toISOString();
    const { assignment, role } = await this.deps.storage.transaction(async (trx) => {
      const role = await this.#role(roleId, within, trx);
      if (!(await actorExists(trx, actorId))) throw new KithError("account.not_found");
      guardEscalation(grants, role.permissions, role.row.scope);
      if (role.row.scope !== "global") await this.#groupAssignmentGuard?.(trx, role.row.scope, actorId);
      const existing = await findAssignment(trx, actorId, roleId);
      if (existing) return { assignment: existing, role: null };
      await insertAssignment(trx, actorId, roleId, now);
      return { assignment: { actorId, roleId, createdAt: now, updatedAt: now }, role: role.row };
    });
    // Assigning a role held already changes nothing, and tells nothing.
    if (role) await this.#acted(actingId, "role.assign", role, actorId);
    return assignment;
  }

  /** Takes a role from an actor; the server's last Owner assignment is refused (409). */
  async unassign(
    grants: readonly Grant[],
    actorId: string,
    roleId: string,
    within: string | null = null,
    actingId: string | null = null,
  ): Promise<void> {
    const role = await this.deps.storage.transaction(async (trx) => {
      const role = await this.#role(roleId, within, trx);
      if (!(await findAssignment(trx, actorId, roleId))) throw new KithError("role.assignment_not_found");
      guardEscalation(grants, role.permissions, role.row.scope);
      if (isOwnerRole(role) && (await countAssignments(trx, roleId)) <= 1) {
        const whose = role.row.scope === "global" ? "The server's" : "The group's";
        throw new KithError("role.last_owner", { message: `${whose} last Owner cannot lose the Owner role` });
      }
      await deleteAssignment(trx, actorId, roleId);
      return role.row;
    });
    await this.#acted(actingId, "role.unassign", role, actorId);
  }
}
