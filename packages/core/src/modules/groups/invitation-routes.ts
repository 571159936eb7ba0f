import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { authenticated, permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { GroupInvitationJson, GroupJson } from "./group-entities.js";
import { ADMIN_SCOPES, GroupParams, MEMBERSHIP_SCOPES, READ_SCOPES, TAGS, concealGroup, inGroup, route, userOf } from "./route-parts.js";

const invite = permission(any("GroupMembers.Invite"), inGroup);
const InvitationParams = z.object({ invitationId: z.string().min(1).max(64) });

/** Invitations: the group's side (GroupMembers.Invite) and the invitee's. */
export const invitationRoutes = [
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/invitations",
    summary: "A group's invitations waiting for an answer, newest first (GroupMembers.Invite in the group)",
    tags: TAGS,
    access: invite,
    whenForbidden: concealGroup,
    scopes: READ_SCOPES,
    params: GroupParams,
    query: idPageQuery,
    response: z.array(GroupInvitationJson),
    handler: async ({ caller, params, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      return pagedReply(url, await module.invitations.ofGroup(params.groupId, userOf(caller), page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/groups/{groupId}/invitations",
    summary: "Invites an account of this server to a group (GroupMembers.Invite in the group)",
    description:
      "Refusals: account.not_found (404, also for a remote account), group.already_member (409), group.already_invited (409), group.invitee_banned (409).",
    tags: TAGS,
    access: invite,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams,
    body: z.object({ account_id: z.string().min(1).max(64).describe("The invitee") }),
    response: GroupInvitationJson,
    handler: async ({ caller, params, body, module }) => module.invitations.invite(params.groupId, userOf(caller), body.account_id),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/groups/{groupId}/invitations/{invitationId}",
    summary: "Withdraws an invitation that waits for an answer (GroupMembers.Invite in the group)",
    tags: TAGS,
    access: invite,
    whenForbidden: concealGroup,
    scopes: ADMIN_SCOPES,
    params: GroupParams.extend({ invitationId: z.string().min(1).max(64) }),
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.invitations.revoke(params.groupId, userOf(caller), params.invitationId);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/group_invitations",
    summary: "The invitations to groups waiting for the caller's answer, newest first",
    tags: TAGS,
    access: authenticated,
    scopes: ["read:follows"],
    query: idPageQuery,
    response: z.array(GroupInvitationJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      return pagedReply(url, await module.invitations.mine(userOf(caller), page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/group_invitations/{invitationId}/accept",
    summary: "Accepts an invitation: the caller joins the group (anyone but the invitee: 404; answered already: 409)",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: InvitationParams,
    response: GroupJson,
    handler: async ({ caller, params, module }) => module.invitations.accept(userOf(caller), params.invitationId),
  }),
  route({
    method: "POST",
    path: "/api/v1/group_invitations/{invitationId}/decline",
    summary: "Declines an invitation (anyone but the invitee: 404; answered already: 409)",
    tags: TAGS,
    access: authenticated,
    scopes: MEMBERSHIP_SCOPES,
    params: InvitationParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.invitations.decline(userOf(caller), params.invitationId);
      return {};
    },
  }),
];
