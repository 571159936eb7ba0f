import type { MigrationSpec } from "../../ports/migration-spec.js";

/**
 * Migration 0025: the server's built-in Owner and Admin roles get the group
 * resources that came with groups, GroupRoles and GroupOwnership, with every
 * access type, as they hold the other group resources. Migration 0001 seeds
 * the built-in roles from the resources as they are when it runs
 * (`domain/resources.ts`), so a database made since has them already (hence
 * the NOT EXISTS) and one made before gets them here.
 */
function grants(yes: string): string[] {
  return ["GroupRoles", "GroupOwnership"].map(
    (resource) =>
      `INSERT INTO role_permissions (role_id, resource, access) SELECT id, '${resource}', '["Read","Add","Modify","Delete"]' FROM roles` +
      ` WHERE built_in = ${yes} AND scope = 'global' AND name IN ('Owner', 'Admin')` +
      ` AND NOT EXISTS (SELECT 1 FROM role_permissions held WHERE held.role_id = roles.id AND held.resource = '${resource}')`,
  );
}

export const groupResourcesMigration: MigrationSpec = {
  name: "0025_group_resources",
  raw: { sqlite: grants("1"), postgres: grants("true") },
};
