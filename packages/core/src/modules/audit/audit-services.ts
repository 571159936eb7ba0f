import type { GroupsServices } from "../groups/index.js";
import type { AuditLog } from "./audit-service.js";

/** The audit module's services, as its routes get them (`module`). */
export interface AuditServices {
  readonly log: AuditLog;
  /** The groups, to conceal a secret one from those who may not see it. */
  readonly groups: GroupsServices;
}
