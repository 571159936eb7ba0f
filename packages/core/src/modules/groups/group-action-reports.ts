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

/** The link from the group's moderation actions to the reports they answer, shared by each kind of action. */
export class GroupActionReportLink {
  #reports: GroupActionReports | null = null;

  /** Sets how an action naming a report (`report_id`) resolves it. */
  resolveWith(reports: GroupActionReports): void {
    this.#reports = reports;
  }

  /** Refuses a `report_id` that names no report about the account in the group's scope (404); ignored without reports. */
  async assertAbout(reportId: string | null, groupId: string, accountId: string): Promise<void> {
    if (reportId !== null) await this.#reports?.assertAbout(reportId, accountId, groupId);
  }

  async resolve(reportId: string | null, groupId: string, actorId: string): Promise<void> {
    if (reportId !== null) await this.#reports?.resolve(reportId, actorId, groupId);
  }
}
