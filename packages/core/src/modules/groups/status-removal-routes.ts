import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { ADMIN_SCOPES, GroupParams, TAGS, concealGroup, grantsOf, inGroup, route, userOf } from "./route-parts.js";

/** A group's moderators remove statuses as they handle the group's reports. */
const moderateStatuses = permission(any("GroupReports.Manage"), inGroup);

/** Moderators removing statuses posted in a group. */
export const statusRemovalRoutes = [
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/statuses/{statusId}",
    summary: "Removes a status posted in the group, whoever wrote it (GroupReports.Manage in the group)",
    description:
      "status.not_found (404) for a status that is not in the group; group.outranked (403) for a status by a member holding in the group what the caller does not. " +
      "`report_id`: the group's report about the status or its author, resolved once the status is gone (404 report.not_found for a report about another account or of another scope). " +
      "Recorded in the group's audit log as `status.remove`.",
    tags: TAGS,
    access: moderateStatuses,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams.extend({ statusId: z.string().min(1).max(64) }),
    query: z.object({
      report_id: z.string().min(1).max(64).optional().describe("The report (in this group's scope) the removal answers"),
    }),
    response: z.object({}),
    handler: async ({ caller, params, query, module }) => {
      await module.statusRemoval.remove(params.groupId, userOf(caller), await grantsOf(caller), params.statusId, query.report_id ?? null);
      return {};
    },
  }),
];
