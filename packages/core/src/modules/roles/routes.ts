import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { ACCESS_TYPES, type Grant, any } from "../../domain/permissions.js";
import type { AssignmentView, RoleService, RoleView } from "./role-service.js";
import { fromBody, fromQuery, permission } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/**
 * Roles and permissions (spec: "RBAC"). Paths are Kith's own under
 * `/api/v1/admin/rbac/`; fields are camelCase as the spec's RBAC table
 * names them. Reads need Roles.Read or Roles.Manage, changes Roles.Manage,
 * and nobody grants or changes a role beyond their own permissions (403).
 *
 * Every route takes a group scope (`scope`, a group id: in the query, and
 * in the body of `POST /roles`): the request then sees and changes that
 * group's roles only, and the group's own GroupRoles.Read or
 * GroupRoles.Manage grants let its admins in, as they do nowhere else.
 */
const fromScope = fromQuery("scope");
const read = permission(any("Roles.Read", "Roles.Manage", "GroupRoles.Read", "GroupRoles.Manage"), { group: fromScope });
const manage = permission(any("Roles.Manage", "GroupRoles.Manage"), { group: fromScope });
const ScopeQuery = z.object({
  scope: z.string().max(64).optional().describe("'global', or a group id: the request works within that group's roles"),
});
const TAGS = ["admin/rbac"];
const READ_SCOPES = ["admin:read"];
const WRITE_SCOPES = ["admin:write"];
const BASE = "/api/v1/admin/rbac";

const PermissionJson = z.object({
  resource: z.string(),
  access: z.array(z.enum(ACCESS_TYPES)),
});

const RoleJson = z.object({
  roleId: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  scope: z.string().describe("'global' or a group id"),
  builtIn: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  permissions: z.array(PermissionJson),
});

const ActorRoleJson = z.object({ actorId: z.string(), roleId: z.string(), createdAt: z.string(), updatedAt: z.string() });

const ConfigJson = z.object({
  resources: z.array(z.object({ name: z.string(), description: z.string(), groupScoped: z.boolean() })),
  accessTypes: z.array(z.enum(ACCESS_TYPES)),
  scopes: z.array(z.string()),
  actions: z.record(z.string(), z.array(z.enum(ACCESS_TYPES))),
  bareName: z.string(),
});

const PermissionBody = z.object({
  resource: z.string().min(1).max(100).describe("A resource name of the configuration"),
  access: z.array(z.string().max(20)).max(10).describe("Access types: Read, Add, Modify, Delete"),
});
const Permissions = z.array(PermissionBody).max(100);
const Name = z.string().max(200);
const Description = z.string().max(2000).nullable();

const RoleParams = z.object({ roleId: z.string().min(1).max(64) });
const ActorParams = z.object({ actorId: z.string().min(1).max(64) });
const ActorRoleParams = z.object({ actorId: z.string().min(1).max(64), roleId: z.string().min(1).max(64) });

function roleJson(role: RoleView): z.infer<typeof RoleJson> {
  return {
    roleId: role.roleId,
    name: role.name,
    description: role.description,
    scope: role.scope,
    builtIn: role.builtIn,
    createdAt: role.createdAt,
    updatedAt: role.updatedAt,
    permissions: role.permissions.map((permission) => ({ resource: permission.resource, access: [...permission.access] })),
  };
}

function actorRoleJson(assignment: AssignmentView): z.infer<typeof ActorRoleJson> {
  return { actorId: assignment.actorId, roleId: assignment.roleId, createdAt: assignment.createdAt, updatedAt: assignment.updatedAt };
}

/** The grants of the signed-in caller, for the privilege-escalation guard. */
async function grantsOf(caller: Caller): Promise<readonly Grant[]> {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.grants();
}

/** The caller's grants and the scope the request works in (a group id, or null for the server's). */
async function scoped(
  services: { roles: RoleService },
  caller: Caller,
  scope: string | undefined,
  need: "read" | "manage",
): Promise<{ grants: readonly Grant[]; within: string | null; actingId: string | null }> {
  const grants = await grantsOf(caller);
  return {
    grants,
    within: services.roles.scopeOfRequest(grants, scope, need),
    actingId: caller.kind === "user" ? caller.accountId : null,
  };
}

export const rbacRoutes = [
  route({
    method: "GET",
    path: `${BASE}/config`,
    summary: "The RBAC configuration: resources, access types, scopes, and how permission names map onto access types",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: ScopeQuery,
    response: ConfigJson,
    handler: async ({ services, caller, query }) => {
      await scoped(services, caller, query.scope, "read");
      const config = services.roles.config();
      return {
        resources: config.resources.map((resource) => ({ ...resource })),
        accessTypes: [...config.accessTypes],
        scopes: [...config.scopes],
        actions: Object.fromEntries(Object.entries(config.actions).map(([action, access]) => [action, [...access]])),
        bareName: config.bareName,
      };
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/roles`,
    summary: "Roles, oldest first; `scope` filters by 'global' or a group id",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: ScopeQuery,
    response: z.array(RoleJson),
    handler: async ({ services, caller, query }) => {
      const { within } = await scoped(services, caller, query.scope, "read");
      return (await services.roles.list(query.scope, within)).map(roleJson);
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/roles`,
    summary: "Creates a role in global scope or a group's scope (a group-scoped role holds group resources only)",
    description: "422 for unknown resources or access types; 403 when the role would hold permissions the caller does not hold.",
    tags: TAGS,
    access: permission(any("Roles.Manage", "GroupRoles.Manage"), { group: fromBody("scope") }),
    scopes: WRITE_SCOPES,
    body: z.object({
      name: Name,
      description: Description.optional(),
      scope: z.string().max(64).default("global").describe("'global', or a group id: the role is that group's, made within its scope"),
      permissions: Permissions.default([]),
    }),
    response: RoleJson,
    handler: async ({ services, caller, body }) => {
      const { grants, within, actingId } = await scoped(services, caller, body.scope, "manage");
      const role = await services.roles.create(
        grants,
        { name: body.name, description: body.description ?? null, scope: body.scope, permissions: body.permissions },
        within,
        actingId,
      );
      return Reply.json(roleJson(role), { status: 201 });
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/roles/{roleId}`,
    summary: "One role with its permissions",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: RoleParams,
    query: ScopeQuery,
    response: RoleJson,
    handler: async ({ services, caller, params, query }) => {
      const { within } = await scoped(services, caller, query.scope, "read");
      return roleJson(await services.roles.get(params.roleId, within));
    },
  }),
  route({
    method: "PUT",
    path: `${BASE}/roles/{roleId}`,
    summary: "Changes a role's name, description or permissions (a built-in role's name cannot change: 409)",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: RoleParams,
    query: ScopeQuery,
    body: z.object({ name: Name.optional(), description: Description.optional(), permissions: Permissions.optional() }),
    response: RoleJson,
    handler: async ({ services, caller, params, query, body }) => {
      const { grants, within, actingId } = await scoped(services, caller, query.scope, "manage");
      const changes = {
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.permissions !== undefined && { permissions: body.permissions }),
      };
      return roleJson(await services.roles.update(grants, params.roleId, changes, within, actingId));
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/roles/{roleId}`,
    summary: "Deletes a custom role and its assignments (built-in roles: 409)",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: RoleParams,
    query: ScopeQuery,
    handler: async ({ services, caller, params, query }) => {
      const { grants, within, actingId } = await scoped(services, caller, query.scope, "manage");
      await services.roles.delete(grants, params.roleId, within, actingId);
      return Reply.empty();
    },
  }),
  route({
    method: "PUT",
    path: `${BASE}/roles/{roleId}/permissions`,
    summary: "Replaces a role's permissions",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: RoleParams,
    query: ScopeQuery,
    body: z.object({ permissions: Permissions }),
    response: RoleJson,
    handler: async ({ services, caller, params, query, body }) => {
      const { grants, within, actingId } = await scoped(services, caller, query.scope, "manage");
      return roleJson(await services.roles.replacePermissions(grants, params.roleId, body.permissions, within, actingId));
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/roles/{roleId}/actors`,
    summary: "The actors a role is assigned to",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: RoleParams,
    query: ScopeQuery,
    response: z.array(ActorRoleJson),
    handler: async ({ services, caller, params, query }) => {
      const { within } = await scoped(services, caller, query.scope, "read");
      return (await services.roles.assignmentsOfRole(params.roleId, within)).map(actorRoleJson);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/actors/{actorId}/roles`,
    summary: "The roles assigned to an actor",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: ActorParams,
    query: ScopeQuery,
    response: z.array(ActorRoleJson),
    handler: async ({ services, caller, params, query }) => {
      const { within } = await scoped(services, caller, query.scope, "read");
      return (await services.roles.assignmentsOfActor(params.actorId, within)).map(actorRoleJson);
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/actors/{actorId}/roles`,
    summary: "Assigns a role to an actor; assigning it again changes nothing",
    description: "403 when the role holds permissions the caller does not hold.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: ActorParams,
    query: ScopeQuery,
    body: z.object({ roleId: z.string().min(1).max(64) }),
    response: ActorRoleJson,
    handler: async ({ services, caller, params, query, body }) => {
      const { grants, within, actingId } = await scoped(services, caller, query.scope, "manage");
      return actorRoleJson(await services.roles.assign(grants, params.actorId, body.roleId, within, actingId));
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/actors/{actorId}/roles/{roleId}`,
    summary: "Takes a role from an actor (the server's last Owner assignment: 409)",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: ActorRoleParams,
    query: ScopeQuery,
    handler: async ({ services, caller, params, query }) => {
      const { grants, within, actingId } = await scoped(services, caller, query.scope, "manage");
      await services.roles.unassign(grants, params.actorId, params.roleId, within, actingId);
      return Reply.empty();
    },
  }),
];
