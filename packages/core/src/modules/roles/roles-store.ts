import type { Kysely } from "kysely";
import type { AccessType, Grant } from "../../domain/permissions.js";
import type { Database, RoleRow } from "../../ports/storage-schema.js";

export async function findRoleByName(db: Kysely<Database>, name: string, scope = "global"): Promise<RoleRow | null> {
  const row = await db
    .selectFrom("roles")
    .selectAll()
    .where((eb) => eb(eb.fn("lower", ["name"]), "=", name.toLowerCase()))
    .where("scope", "=", scope)
    .executeTakeFirst();
  return row ?? null;
}

/** Every permission the actor holds through its roles, with each role's scope. */
export async function grantsOfActor(db: Kysely<Database>, actorId: string): Promise<Grant[]> {
  const rows = await db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .innerJoin("role_permissions", "role_permissions.role_id", "roles.id")
    .select(["roles.scope", "role_permissions.resource", "role_permissions.access"])
    .where("actor_roles.actor_id", "=", actorId)
    .execute();
  return rows.map((row) => ({ resource: row.resource, access: JSON.parse(row.access) as AccessType[], scope: row.scope }));
}

export async function rolesOfActor(db: Kysely<Database>, actorId: string): Promise<RoleRow[]> {
  return db
    .selectFrom("actor_roles")
    .innerJoin("roles", "roles.id", "actor_roles.role_id")
    .selectAll("roles")
    .where("actor_roles.actor_id", "=", actorId)
    .orderBy("roles.created_at")
    .execute();
}

/** Replaces the actor's global roles with one role. */
export async function setGlobalRole(db: Kysely<Database>, actorId: string, roleId: string, now: string): Promise<void> {
  const globalRoleIds = db.selectFrom("roles").select("id").where("scope", "=", "global");
  await db.deleteFrom("actor_roles").where("actor_id", "=", actorId).where("role_id", "in", globalRoleIds).execute();
  await db.insertInto("actor_roles").values({ actor_id: actorId, role_id: roleId, created_at: now, updated_at: now }).execute();
}
