import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { type Grant, any } from "../../domain/permissions.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { fromParam, permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { type ModuleForbiddenContext, moduleRoute } from "../module.js";
import { GROUP_AUDIT_RESOURCES, SERVER_AUDIT_RESOURCES, type AuditQuery } from "./audit-service.js";
import type { AuditServices } from "./audit-services.js";

const route = moduleRoute<AuditServices>();

/** Read or Manage of any of the resources: the entries of the others are left out of what the caller reads. */
const readingAny = (resources: readonly string[]) => any(...resources.flatMap((resource) => [`${resource}.Read`, `${resource}.Manage`]));

/**
 * The audit log of moderation, Kith's own (Mastodon's admin API has none):
 * the server's at `/api/v1/admin/audit_log`, a group's at
 * `/api/v1/groups/{groupId}/audit_log`. An entry is read by those holding
 * Read or Manage of the resource it is about: account actions Users, domain
 * blocks and allows Federation, roles Roles, reports Reports; in a group,
 * bans and removals GroupMembers, its roles GroupRoles, its reports
 * GroupReports. A caller holding some of them reads those entries only.
 */
const TAGS = ["admin/audit-log"];

const AuditEntryJson = z.object({
  id: z.string().describe("au_…, time-ordered: the cursor of the pages"),
  action: z.string().describe("A dotted verb: account.suspend, domain_block.create, role.assign, group.ban, report.resolve…"),
  actor: AccountJson.nullable().describe("Who acted; null for the server itself, or an account that is gone"),
  actor_id: z.string().nullable(),
  target_type: z.string().describe("What was acted on: account, domain, role, report…"),
  target_id: z.string().describe("Its id; a domain's name for domain blocks and allows"),
  scope: z.string().nullable().describe("Null: the server's scope; else the group's id"),
  text: z.string().nullable().describe("What the moderator wrote with the action (a warning, a reason), or a short account of it"),
  created_at: z.string(),
});

const Verb = z
  .string()
  .max(100)
  .regex(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, "A dotted verb of lower-case words");
const AuditLogQuery = idPageQuery.extend({
  action: Verb.optional().describe("An action (account.suspend), or its start up to a dot (account): every action under it"),
  actor_id: z.string().min(1).max(64).optional().describe("Who acted"),
  target_type: z
    .string()
    .max(50)
    .regex(/^[a-z][a-z0-9_]*$/, "A lower-case word")
    .optional(),
  target_id: z.string().min(1).max(300).optional(),
});

function auditQuery(query: z.infer<typeof AuditLogQuery>): AuditQuery {
  return {
    ...(query.action !== undefined && { action: query.action }),
    ...(query.actor_id !== undefined && { actorId: query.actor_id }),
    ...(query.target_type !== undefined && { targetType: query.target_type }),
    ...(query.target_id !== undefined && { targetId: query.target_id }),
  };
}

async function grantsOf(caller: Caller): Promise<readonly Grant[]> {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.grants();
}

const GroupParams = z.object({ groupId: z.string().min(1).max(64) });

/** A refused caller who may not see the group (a secret one, to a non-member) is told it does not exist. */
async function concealGroup({ caller, params, module }: ModuleForbiddenContext<AuditServices>): Promise<void> {
  await module.groups.groups.conceal(params.groupId ?? "", caller.kind === "user" ? caller.accountId : null);
}

const PAGE = "Newest first; `limit` (at most 80), `max_id`, `min_id`, `since_id`; the neighbouring pages in the `Link` header.";

export const auditRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/audit_log",
    summary: "The server's moderation audit log: who did what to what, when, with what words",
    description:
      `${PAGE} Filters: \`action\` (a verb, or its start up to a dot), \`actor_id\`, \`target_type\`, \`target_id\`. ` +
      "Holders of Read or Manage of Users, Federation, Roles or Reports read the entries of those they hold: account actions, " +
      "domain blocks and allows, role changes, reports.",
    tags: TAGS,
    access: permission(readingAny(SERVER_AUDIT_RESOURCES)),
    scopes: ["admin:read"],
    query: AuditLogQuery,
    response: z.array(AuditEntryJson),
    handler: async ({ caller, query, url, module }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const resources = module.log.readableResources(await grantsOf(caller), null);
      return pagedReply(url, await module.log.page(null, resources, auditQuery(query), page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/groups/{groupId}/audit_log",
    summary: "A group's moderation audit log: bans, removals, role changes and reports in the group",
    description:
      `${PAGE} Filters as the server's log. Holders of Read or Manage of GroupMembers, GroupRoles or GroupReports in the ` +
      "group (or globally) read the entries of those they hold; a grant held in another group does not count. A secret " +
      "group is not found (404) by a refused caller who is not its member.",
    tags: ["groups"],
    access: permission(readingAny(GROUP_AUDIT_RESOURCES), { group: fromParam("groupId") }),
    whenForbidden: concealGroup,
    scopes: ["read:accounts"],
    params: GroupParams,
    query: AuditLogQuery,
    response: z.array(AuditEntryJson),
    handler: async ({ caller, params, query, url, module }) => {
      const grants = await grantsOf(caller);
      // A global grant lets one in everywhere; the group must still exist and be seen.
      await module.groups.groups.conceal(params.groupId, caller.kind === "user" ? caller.accountId : null);
      const page = pageRequest(query, DEFAULT_PAGE);
      const resources = module.log.readableResources(grants, params.groupId);
      return pagedReply(url, await module.log.page(params.groupId, resources, auditQuery(query), page), page.limit);
    },
  }),
];
