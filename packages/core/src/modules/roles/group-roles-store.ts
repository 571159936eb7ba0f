import type { Kysely } from "kysely";
import type { AccessType, Grant } from "../../domain/permissions.js";
import type { Database } from "../../ports/storage-schema.js";

/** A role of a group, as a member list shows it. */
export interface GroupRoleRef {
  readonly id: string;
  readonly name: string;
}

export interface NewGroupRole {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly permissions: readonly { readonly resource: string; readonly access: readonly AccessType[] }[];
}

/** Inserts a group's built-in roles (built in: they cannot be renamed or deleted) with their permissions. */
export async function insertGroupRoles(db: Kysely<Database>, groupId: string, roles: readonly NewGroupRole[], now: string): Promise<void> {
  await db
    .insertInto("roles")
    .values(
      roles.map((role) => ({
        id: role.id,
        name: role.name,
        description: role.description,
        scope: groupId,
        built_in: true,
        created_at: now,
        updated_at: now,
      })),
    )
    .execute();
  const permissions = roles.flatMap((role) =>
    role.permissions.map((permission) => ({ role_id: role.id, resource: permission.resource, access: JSON.stringify(permission.access) })),
  );
  if (permissions.length > 0) await db.insertInto("role_permissions").values(permissions).execute();
}

/** The id of a group's built-in role of that name, or null. */
export async function findGroupBuiltInRole(db: Kysely<Database>, groupId: string, name: string): Promise<string | null> {
  const row = await db
    .selectFrom("roles")
    .select("id")
    .where("scope", "=", groupId)
    .where("built_in", "=", true)
    .where("name", "=", name)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Assigns roles to an actor; a role it already holds is left as it is. */
export async function insertAssignments(db: Kysely<Database>, actorId: string, roleIds: readonly string[], now: string): Promise<void> {
  if (roleIds.length === 0) return;
  await db
    .insertInto("actor_roles")
    .values(roleIds.map((roleId) => ({ actor_id: actorId, role_id: roleId, created_at: now, updated_at: now })))
    .onConflict((conflict) => conflict.columns(["actor_id", "role_id"]).doNothing())
    .execute();
}

/** Takes every role of the group from the actor. */
export async function deleteGroupAssignments(db: Kysely<Database>, groupId: string, actorId: string): Promise<void> {
  const groupRoles = db.selectFrom("roles").select("id").where("scope", "=", groupId);
  await db.deleteFrom("actor_roles").where("actor_id", "=", actorId).where("role_id", "in", groupRoles).execute();
}

/** Deletes a group's roles, their permissions and their assignments. */
export async function deleteGroupRoleRows(db: Kysely<Database>, groupId: string): Promise<void> {
  const groupRoles = db.selectFrom("roles").select("id").where("scope", "=", groupId);
  await db.deleteFrom("actor_roles").where("role_id", "in", groupRoles).execute();
  await db.deleteFrom("role_permissions").where("role_id", "in", groupRoles).execute();
  await db.deleteFrom("roles").where("scope", "=", groupId).execute();
}

/** The roles of the group each of the actors holds, oldest role first. */
export async function groupRolesOfActors(
  db: Kysely<Database>,
  groupId: string,
  actorIds: readonly string[],
): Promise<Map<string, GroupRoleRef[]>> {
  const held = new Map<string, GroupRoleRef[]>();
  if (actorIds.length === 0) return held;
  const rows = await db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .select(["actor_roles.actor_id", "roles.id", "roles.name"])
    .where("roles.scope", "=", groupId)
    .where("actor_roles.actor_id", "in", [...new Set(actorIds)])
    .orderBy("roles.created_at")
    .orderBy("roles.id")
    .execute();
  for (const row of rows) {
    const roles = held.get(row.actor_id) ?? [];
    roles.push({ id: row.id, name: row.name });
    held.set(row.actor_id, roles);
  }
  return held;
}

/** The permissions the actor holds through the group's roles. */
export async function groupGrantsOfActor(db: Kysely<Database>, groupId: string, actorId: string): Promise<Grant[]> {
  const rows = await db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .innerJoin("role_permissions", "role_permissions.role_id", "roles.id")
    .select(["role_permissions.resource", "role_permissions.access"])
    .where("actor_roles.actor_id", "=", actorId)
    .where("roles.scope", "=", groupId)
    .execute();
  return rows.map((row) => ({ resource: row.resource, access: JSON.parse(row.access) as AccessType[], scope: groupId }));
}

/** How many actors hold the role. */
export async function holdersOfRole(db: Kysely<Database>, roleId: string): Promise<number> {
  const row = await db
    .selectFrom("actor_roles")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("role_id", "=", roleId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Whether the actor holds the role. */
export async function holdsRole(db: Kysely<Database>, actorId: string, roleId: string): Promise<boolean> {
  const row = await db.selectFrom("actor_roles").select("role_id").where("actor_id", "=", actorId).where("role_id", "=", roleId).executeTakeFirst();
  return row !== undefined;
}

/** The roles the actor holds in each of the groups. */
export async function rolesOfActorInGroups(
  db: Kysely<Database>,
  actorId: string,
  groupIds: readonly string[],
): Promise<Map<string, GroupRoleRef[]>> {
  const held = new Map<string, GroupRoleRef[]>();
  if (groupIds.length === 0) return held;
  const rows = await db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .select(["roles.scope", "roles.id", "roles.name"])
    .where("actor_roles.actor_id", "=", actorId)
    .where("roles.scope", "in", [...new Set(groupIds)])
    .orderBy("roles.created_at")
    .orderBy("roles.id")
    .execute();
  for (const row of rows) {
    const roles = held.get(row.scope) ?? [];
    roles.push({ id: row.id, name: row.name });
    held.set(row.scope, roles);
  }
  return held;
}

/** The actors holding, through the group's roles, every one of `access` on `resource` in the group. */
export async function groupHoldersOf(db: Kysely<Database>, groupId: string, resource: string, access: readonly AccessType[]): Promise<string[]> {
  const rows = await db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .innerJoin("role_permissions", "role_permissions.role_id", "roles.id")
    .select(["actor_roles.actor_id", "role_permissions.access"])
    .where("roles.scope", "=", groupId)
    .where("role_permissions.resource", "=", resource)
    .execute();
  const held = new Map<string, Set<AccessType>>();
  for (const row of rows) {
    const types = held.get(row.actor_id) ?? new Set<AccessType>();
    for (const type of JSON.parse(row.access) as AccessType[]) types.add(type);
    held.set(row.actor_id, types);
  }
  return [...held].filter(([, types]) => access.every((type) => types.has(type))).map(([actorId]) => actorId);
}
