import { KithError } from "../../domain/errors.js";
import type { Grant } from "../../domain/permissions.js";
import type { KithServices } from "../core-services.js";
import type { GroupRoles } from "../roles/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { GroupActionReportLink } from "./group-action-reports.js";
import { assertOutranks } from "./group-outrank.js";
import { authorInGroup } from "./group-statuses-store.js";
import { groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";

/**
 * A group's moderators removing statuses posted in the group, whoever wrote
 * them (a member who outranks the moderator excepted). With a report id, the
 * group's report about the status or its author is resolved once it is gone.
 */
export class GroupStatusRemoval {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly core: Pick<KithServices, "statuses" | "events">,
    private readonly roles: GroupRoles,
    private readonly views: GroupViews,
    private readonly reports: GroupActionReportLink,
  ) {}

  async remove(groupId: string, actorId: string, actorGrants: readonly Grant[], statusId: string, reportId: string | null): Promise<void> {
    await this.views.visible(groupId, actorId);
    const db = groupsDb(this.deps.storage.db);
    const authorId = await authorInGroup(db, groupId, statusId);
    if (authorId === null) throw new KithError("status.not_found");
    if (authorId !== actorId) await assertOutranks(this.roles, db, groupId, actorGrants, authorId);
    await this.reports.assertAbout(reportId, groupId, authorId);
    await this.core.statuses.remove(statusId);
    await this.core.events.emit({
      type: "moderation.action",
      actorId,
      action: "status.remove",
      resource: "GroupReports",
      targetType: "status",
      targetId: statusId,
      groupId,
      text: `by ${authorId}`,
    });
    await this.reports.resolve(reportId, groupId, actorId);
  }
}
