import type { ResourceName } from "./resources.js";

/**
 * One moderation action, as the audit log keeps it: who did what to what,
 * where, and with what words. Told by the part that acted (the
 * `moderation.action` domain event, or the audit log's `record`).
 */
export interface ModerationAction {
  /** The account that acted; null for the server itself (a command line, a job, another server's request). */
  readonly actorId: string | null;
  /**
   * A dotted verb: what was done to what, `account.suspend`, `domain_block.create`, `role.assign`, `group.ban`,
   * `report.resolve`. The part before the first dot names the kind of thing acted on, which a reader filters by.
   */
  readonly action: string;
  /**
   * The resource whose Read (or Manage) permission lets one read the entry: Users, Federation, Roles or Reports in
   * the server's scope; GroupMembers, GroupRoles or GroupReports in a group's.
   */
  readonly resource: ResourceName;
  /** What was acted on: `account`, `domain`, `role`, `report`... */
  readonly targetType: string;
  /** Its id (a domain: its name, which outlives the block). */
  readonly targetId: string;
  /** The group the action was taken in; absent or null: the server's scope. */
  readonly groupId?: string | null;
  /** What the moderator wrote with it (a warning, a reason, a note), or a short account of it. */
  readonly text?: string | null;
}
