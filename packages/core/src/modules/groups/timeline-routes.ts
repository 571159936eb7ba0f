import { z } from "zod";
import { StatusJson } from "../../mastodon/entities/status.js";
import { publicAccess } from "../../platform/http/access.js";
import { POSTS_PAGE, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { GroupParams, route, viewerOf } from "./route-parts.js";

/** A group's timeline, as Mastodon's timelines are read. */
export const timelineRoutes = [
  route({
    method: "GET",
    path: "/api/v1/timelines/group/{groupId}",
    summary: "The statuses posted in a group, newest first, paged as Mastodon's timelines (`max_id`, `since_id`, `min_id`, `limit`, `Link`)",
    description:
      "A secret group's timeline is group.not_found (404) to anyone but its members. Each status is shown as GET /api/v1/statuses/{id} shows it to the caller.",
    tags: ["timelines", "groups"],
    access: publicAccess,
    scopes: ["read:statuses"],
    params: GroupParams,
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, module, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const { ids, statuses } = await module.timeline.page(params.groupId, viewerOf(caller), page);
      const link = idPageLinks(url, ids, page.limit);
      return Reply.json(statuses, link ? { headers: { link } } : {});
    },
  }),
];
