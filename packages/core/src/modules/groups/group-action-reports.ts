/**
 * How a manager's action on a member (a removal, a ban) resolves the report
 * it answers, in the group's scope: set by the reports module when it is
 * composed; without it a `report_id` is ignored, as an account action's is.
 */
export interface GroupActionReports {
  /** Refuses (404) a report that is not about the account or not in the group's scope. */
  assertAbout(reportId: string, accountId: string, groupId: string): Promise<void>;
  /** Resolves the report in the group's scope, the actor recorded. */
  resolve(reportId: string, actorId: string, groupId: string): Promise<void>;
}
