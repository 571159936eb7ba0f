import type { Kysely } from "kysely";
import type { AccessType } from "../../domain/permissions.js";
import type { Database, RoleRow } from "../../ports/storage-schema.js";

/** One permission row of a role: a resource and the access types held on it. */
export interface StoredPermission {
  readonly resource: string;
  readonly access: readonly AccessType[];
}

/** A role with its permissions, as the RBAC administration reads it. */
export interface StoredRole {
  readonly row: RoleRow;
  readonly permissions: readonly StoredPermission[];
}

/** One assignment of a role to an actor. */
export interface StoredAssignment {
  readonly actorId: string;
  readonly roleId: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

async function withPermissions(db: Kysely<Database>, rows: readonly RoleRow[]): Promise<StoredRole[]> {
  if (rows.length === 0) return [];
  const permissionRows = await db
    .selectFrom("role_permissions")
    .selectAll()
    .where(
      "role_id",
      "in",
      rows.map((row) => row.id),
    )
    .orderBy("resource")
    .execute();
  return rows.map((row) => ({
    row,
    permissions: permissionRows
      .filter((permission) => permission.role_id === row.id)
      .map((permission) => ({ resource: permission.resource, access: JSON.parse(permission.access) as AccessType[] })),
  }));
}

export async function listRolesWithPermissions(db: Kysely<Database>, scope?: string): Promise<StoredRole[]> {
  let query = db.selectFrom("roles").selectAll();
  if (scope !== undefined) query = query.where("scope", "=", scope);
  return withPermissions(db, await query.orderBy("created_at").orderBy("id").execute());
}

export async function findRoleWithPermissions(db: Kysely<Database>, roleId: string): Promise<StoredRole | null> {
  const row = await db.selectFrom("roles").selectAll().where("id", "=", roleId).executeTakeFirst();
  if (!row) return null;
  return (await withPermissions(db, [row]))[0] ?? null;
}

export async function insertRole(
  db: Kysely<Database>,
  role: { id: string; name: string; description: string | null; scope: string; now: string },
): Promise<void> {
  await db
    .insertInto("roles")
    .values({
      id: role.id,
      name: role.name,
      description: role.description,
      scope: role.scope,
      built_in: false,
      created_at: role.now,
      updated_at: role.now,
    })
    .execute();
}

export async function updateRoleRow(
  db: Kysely<Database>,
  roleId: string,
  changes: { name?: string; description?: string | null; now: string },
): Promise<void> {
  await db
    .updateTable("roles")
    .set({
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.description !== undefined && { description: changes.description }),
      updated_at: changes.now,
    })
    .where("id", "=", roleId)
    .execute();
}

export async function replaceRolePermissions(
  db: Kysely<Database>,
  roleId: string,
  permissions: readonly StoredPermission[],
): Promise<void> {
  await db.deleteFrom("role_permissions").where("role_id", "=", roleId).execute();
  if (permissions.length === 0) return;
  await db
    .insertInto("role_permissions")
    .values(
      permissions.map((permission) => ({ role_id: roleId, resource: permission.resource, access: JSON.stringify(permission.access) })),
    )
    .execute();
}

export async function deleteRoleRow(db: Kysely<Database>, roleId: string): Promise<void> {
  await db.deleteFrom("actor_roles").where("role_id", "=", roleId).execute();
  await db.deleteFrom("role_permissions").where("role_id", "=", roleId).execute();
  await db.deleteFrom("roles").where("id", "=", roleId).execute();
}

function toAssignment(row: { actor_id: string; role_id: string; created_at: string; updated_at: string }): StoredAssignment {
  return { actorId: row.actor_id, roleId: row.role_id, createdAt: row.created_at, updatedAt: row.updated_at };
}

export async function assignmentsOfRole(db: Kysely<Database>, roleId: string): Promise<StoredAssignment[]> {
  const rows = await db
    .selectFrom("actor_roles")
    .selectAll()
    .where("role_id", "=", roleId)
    .orderBy("created_at")
    .orderBy("actor_id")
    .execute();
  return rows.map(toAssignment);
}

export async function assignmentsOfActor(db: Kysely<Database>, actorId: string): Promise<StoredAssignment[]> {
  const rows = await db
    .selectFrom("actor_roles")
    .selectAll()
    .where("actor_id", "=", actorId)
    .orderBy("created_at")
    .orderBy("role_id")
    .execute();
  return rows.map(toAssignment);
}

export async function findAssignment(db: Kysely<Database>, actorId: string, roleId: string): Promise<StoredAssignment | null> {
  const row = await db
    .selectFrom("actor_roles")
    .selectAll()
    .where("actor_id", "=", actorId)
    .where("role_id", "=", roleId)
    .executeTakeFirst();
  return row ? toAssignment(row) : null;
}

export async function insertAssignment(db: Kysely<Database>, actorId: string, roleId: string, now: string): Promise<void> {
  await db.insertInto("actor_roles").values({ actor_id: actorId, role_id: roleId, created_at: now, updated_at: now }).execute();
}

export async function deleteAssignment(db: Kysely<Database>, actorId: string, roleId: string): Promise<void> {
  await db.deleteFrom("actor_roles").where("actor_id", "=", actorId).where("role_id", "=", roleId).execute();
}

export async function countAssignments(db: Kysely<Database>, roleId: string): Promise<number> {
  const row = await db
    .selectFrom("actor_roles")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("role_id", "=", roleId)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

export async function actorExists(db: Kysely<Database>, actorId: string): Promise<boolean> {
  const row = await db.selectFrom("accounts").select("id").where("id", "=", actorId).executeTakeFirst();
  return row !== undefined;
}
