import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { authenticated, permission, publicAccess } from "../../platform/http/access.js";
import { ACCOUNTS_PAGE, DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { GroupBanJson, GroupJson, GroupMemberJson, JoinRequestJson } from "./group-entities.js";
import {
  ADMIN_SCOPES,
  GroupParams,
  GroupUserParams,
  MEMBERSHIP_SCOPES,
  READ_SCOPES,
  TAGS,
  concealGroup,
  grantsOf,
  inGroup,
  route,
  userOf,
  viewerOf,
} from "./route-parts.js";

const manageMembers = permission(any("GroupMembers.Manage"), inGroup);
const RequestParams = GroupParams.extend({ requestId: z.string().min(1).max(64) });

/** A report a manager's action answers, resolved with it. */
const ReportId = z.string().min(1).max(64).optional().describe("The report (in this group's scope) the action answers");

/** Joining and leaving; a group's members, join requests and bans. */
export const membershipRoutes = [
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/join",
    summary:
      "Joins a group, by its join mode: OPEN at once, APPROVAL by a join request, INVITE_ONLY with an invitation, QUESTIONS with a join token",
    description:
      "A pending invitation lets the caller in whatever the mode. Refusals: group.already_member (409), group.banned (403), group.invitation_required (403), group.join_token_required (422), group.join_token_invalid (422), group.join_token_expired (422), group.join_token_used (409). Asking again while a request waits changes nothing.",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: GroupParams,
    body: z.object({
      token: z.string().min(1).max(200).optional().describe("From POST .../questions/answers"),
      message: z.string().max(1000).optional().describe("For the managers who decide a join request"),
    }),
    response: GroupJson,
    handler: async ({ caller, params, body, module }) =>
      module.membership.join(params.groupId, userOf(caller), {
        ...(body.token !== undefined && { token: body.token }),
        ...(body.message !== undefined && { message: body.message }),
      }),
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/leave",
    summary: "Leaves a group, or withdraws the caller's pending join request (the last owner cannot leave: 409)",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: GroupParams,
    response: GroupJson,
    handler: async ({ caller, params, module }) => module.membership.leave(params.groupId, userOf(caller)),
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/members",
    summary: "A group's members, the latest to join first, each with the group's roles it holds",
    tags: TAGS,
    access: publicAccess,
    scopes: READ_SCOPES,
    params: GroupParams,
    query: idPageQuery,
    response: z.array(GroupMemberJson),
    handler: async ({ caller, params, query, module, url }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      return pagedReply(url, await module.membership.members(params.groupId, viewerOf(caller), page), page.limit);
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/members/{userId}",
    summary: "Removes a member (GroupMembers.Manage in the group)",
    description:
      "group.outranked (403) for a member holding in the group what the caller does not; group.last_owner (409). " +
      "`report_id`: the group's report about the member, resolved once they are removed (404 report.not_found for a report about another account or of another scope).",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupUserParams,
    query: z.object({ report_id: ReportId }),
    response: z.object({}),
    handler: async ({ caller, params, query, module }) => {
      await module.membership.removeMember(params.groupId, userOf(caller), await grantsOf(caller), params.userId, query.report_id ?? null);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/bans",
    summary: "The accounts banned from a group, newest first (GroupMembers.Manage in the group)",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: READ_SCOPES,
    params: GroupParams,
    response: z.array(GroupBanJson),
    handler: async ({ caller, params, module }) => module.membership.bans(params.groupId, userOf(caller)),
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/bans/{userId}",
    summary:
      "Bans an account from a group: removed, its request rejected, its invitations withdrawn, unable to rejoin (GroupMembers.Manage)",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupUserParams,
    description:
      "`report_id`: the group's report about the account, resolved once it is banned (404 report.not_found for a report about another account or of another scope).",
    body: z.object({ reason: z.string().trim().max(1000).optional(), report_id: ReportId }),
    response: GroupBanJson,
    handler: async ({ caller, params, body, module }) => {
      const reportId = body.report_id ?? null;
      return module.membership.ban(params.groupId, userOf(caller), await grantsOf(caller), params.userId, body.reason || null, reportId);
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/bans/{userId}",
    summary: "Lifts a ban (GroupMembers.Manage in the group)",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupUserParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.membership.unban(params.groupId, userOf(caller), params.userId);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/join_requests",
    summary: "A group's join requests, newest first: pending ones unless `status` says (GroupMembers.Manage in the group)",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: READ_SCOPES,
    params: GroupParams,
    query: idPageQuery.extend({ status: z.enum(["pending", "approved", "rejected"]).default("pending") }),
    response: z.array(JoinRequestJson),
    handler: async ({ caller, params, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      return pagedReply(url, await module.membership.joinRequests(params.groupId, userOf(caller), query.status, page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/join_requests/{requestId}/approve",
    summary: "Approves a join request: the requester becomes a member (GroupMembers.Manage; a decided request: 409)",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: RequestParams,
    response: JoinRequestJson,
    handler: async ({ caller, params, module }) => module.membership.approve(params.groupId, userOf(caller), params.requestId),
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/join_requests/{requestId}/reject",
    summary: "Rejects a join request (GroupMembers.Manage; a decided request: 409)",
    tags: TAGS,
    access: manageMembers,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: RequestParams,
    response: JoinRequestJson,
    handler: async ({ caller, params, module }) => module.membership.reject(params.groupId, userOf(caller), params.requestId),
  }),
];
