import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { QUOTE_POLICIES } from "./quote-policy.js";
import { actorOf, cursorPagedReply, renderStatus } from "./status-route-helpers.js";

/** Mastodon 4.5's quote posts: a status's quotes, revoking one, and who may quote a status. */

const StatusParams = z.object({ id: z.string().min(1).max(64) });

export const quoteRoutes = [
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}/quotes",
    summary: "The accepted quotes of one of the caller's statuses, newest first, paged with `Link`",
    description: "404 when the caller may not see the status, 403 (status.forbidden) when it is someone else's.",
    tags: ["statuses"],
    access: authenticated,
    scopes: ["read:statuses"],
    params: StatusParams,
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, services, url }) => {
      const accountId = actorOf(caller);
      const page = pageRequest(query);
      const ids = await services.quotes.quoteIds(accountId, params.id, page);
      return cursorPagedReply(url, await services.statusViews.renderList(ids, accountId), ids, page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/statuses/{id}/quotes/{quotingStatusId}/revoke",
    summary: "Revokes a quote of one of the caller's statuses; answers with the quoting status, which no longer shows it",
    description:
      "404 when the caller may not see the status or `quotingStatusId` does not quote it, 403 (status.forbidden) when the status is someone else's. " +
      "The quoting status's server is sent a Delete of the quote's authorization.",
    tags: ["statuses"],
    access: authenticated,
    scopes: ["write:statuses"],
    params: z.object({ id: z.string().min(1).max(64), quotingStatusId: z.string().min(1).max(64) }),
    response: StatusJson,
    handler: async ({ caller, params, services }) => {
      const accountId = actorOf(caller);
      await services.quotes.revoke(accountId, params.id, params.quotingStatusId);
      return renderStatus(services, params.quotingStatusId, accountId);
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/statuses/{id}/interaction_policy",
    summary: "Sets who may quote one of the caller's statuses (`quote_approval_policy`: public, followers or nobody)",
    description: "Private and direct statuses stay unquotable whatever is asked. 403 (status.forbidden) on someone else's status.",
    tags: ["statuses"],
    access: authenticated,
    scopes: ["write:statuses"],
    params: StatusParams,
    body: z.object({ quote_approval_policy: z.enum(QUOTE_POLICIES) }),
    response: StatusJson,
    handler: async ({ caller, params, body, services }) => {
      const accountId = actorOf(caller);
      await services.quotes.setPolicy(accountId, params.id, body.quote_approval_policy);
      return renderStatus(services, params.id, accountId);
    },
  }),
];
