/**
 * What other modules use of roles: the roles of groups, kept in RBAC's group
 * scope, and the guard the groups module sets on assignments of them.
 */
export { GroupRoles, type GroupRoleRef } from "./group-roles.js";
export { type GroupAssignmentGuard, type RoleService, grantsCover } from "./role-service.js";
