import { z } from "zod";
import { publicAccess } from "../../platform/http/access.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { POSTS_PAGE, idPageLinks, idPageQuery, pagedReply, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { isGroupAccountId } from "../accounts/group-accounts.js";
import { route } from "../core-route.js";
import { zBool } from "../../platform/http/schemas.js";
import { viewerOf } from "./status-route-helpers.js";

/** An account's statuses as the caller may see them: Mastodon's `GET /api/v1/accounts/:id/statuses`. */
export const accountStatusRoutes = [
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/statuses",
    summary:
      "An account's posts (a group's account: the statuses posted in the group), newest first, with Mastodon's filters (pinned, exclude_replies, exclude_reblogs, only_media, tagged), paged with `Link`",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:statuses"],
    params: z.object({ id: z.string().min(1).max(64) }),
    query: idPageQuery.extend({
      pinned: zBool.optional(),
      exclude_replies: zBool.optional(),
      exclude_reblogs: zBool.optional(),
      only_media: zBool.optional(),
      tagged: z.string().max(200).optional(),
    }),
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, services, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      if (isGroupAccountId(params.id)) {
        // A group's statuses are its timeline, as the caller may see it; a group pins none, and the filters are for people's accounts.
        await services.groupAccounts.assertVisible(viewerOf(caller), params.id);
        if (query.pinned) return [];
        const { ids, statuses } = await services.groupAccounts.provider().statuses(params.id, viewerOf(caller), page);
        const link = idPageLinks(url, ids, page.limit);
        return Reply.json(statuses, link ? { headers: { link } } : {});
      }
      const statuses = await services.statusQueries.accountStatuses(
        params.id,
        viewerOf(caller),
        {
          ...(query.pinned !== undefined && { pinned: query.pinned }),
          ...(query.exclude_replies !== undefined && { excludeReplies: query.exclude_replies }),
          ...(query.exclude_reblogs !== undefined && { excludeReblogs: query.exclude_reblogs }),
          ...(query.only_media !== undefined && { onlyMedia: query.only_media }),
          ...(query.tagged && { tagged: query.tagged }),
        },
        page,
      );
      return query.pinned ? statuses : pagedReply(url, statuses, page.limit);
    },
  }),
];
