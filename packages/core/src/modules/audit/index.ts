import { groupsModule } from "../groups/index.js";
import { defineModule } from "../module.js";
import { AuditLog } from "./audit-service.js";
import type { AuditServices } from "./audit-services.js";
import { auditMigrations } from "./migrations.js";
import { auditRoutes } from "./routes.js";

export type { AuditServices } from "./audit-services.js";
export type { AuditEntity, AuditLog, AuditQuery, ModerationAction } from "./audit-service.js";

/**
 * The moderation audit log (`/api/v1/admin/audit_log`, and a group's at
 * `/api/v1/groups/{groupId}/audit_log`): every moderation action, who took
 * it, on what, where, with what words.
 *
 * A part that moderates tells it in one of two ways:
 * - it emits the domain event `moderation.action` (a `ModerationAction`)
 *   after its change commits, and the entry is written then: what the
 *   social core does (account actions, domain blocks and allows, roles) and
 *   the groups module (bans, unbans, removals). A crash between the two
 *   loses the entry, never the action.
 * - or, from a module that `requires` this one, it calls
 *   `context.use(auditModule).log.record({ actorId, action: "report.resolve",
 *   resource: "Reports", targetType: "report", targetId, groupId, text }, trx)`
 *   inside its own transaction, and the entry commits with the action.
 */
export const auditModule = defineModule({
  name: "audit",
  requires: [groupsModule],
  migrations: auditMigrations,
  services: ({ deps, core, use }): AuditServices => ({ log: new AuditLog(deps, core), groups: use(groupsModule) }),
  routes: auditRoutes,
  events: ({ log }, events) => {
    events.on("moderation.action", async ({ type: _, ...action }) => {
      await log.record(action);
    });
  },
});
