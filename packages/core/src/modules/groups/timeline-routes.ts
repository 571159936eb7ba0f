import { z } from "zod";
import { StatusJson } from "../../mastodon/entities/status.js";
import { publicAccess } from "../../platform/http/access.js";
import { POSTS_PAGE, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import type { GroupsServices } from "./groups-services.js";
import type { StatusesOf } from "./group-timeline.js";
import { GroupParams, route, viewerOf } from "./route-parts.js";
import type { Caller } from "../../domain/caller.js";

const PAGING = "paged as Mastodon's timelines (`max_id`, `since_id`, `min_id`, `limit`, `Link`)";
const SHOWN = "Each status is shown as GET /api/v1/statuses/{id} shows it to the caller.";

/** Answers one page of a group's or a channel's timeline, with its `Link` header. */
async function timelineReply(
  module: GroupsServices,
  of: StatusesOf,
  caller: Caller,
  query: z.infer<typeof idPageQuery>,
  url: URL,
): Promise<Reply> {
  const page = pageRequest(query, POSTS_PAGE);
  const { ids, statuses } = await module.timeline.page(of, viewerOf(caller), page);
  const link = idPageLinks(url, ids, page.limit);
  return Reply.json(statuses, link ? { headers: { link } } : {});
}

/** A group's timeline and its channels', as Mastodon's timelines are read. */
export const timelineRoutes = [
  route({
    method: "GET",
    path: "/api/v1/timelines/group/{groupId}",
    summary: `The statuses posted in a group, in any of its channels, newest first, ${PAGING}`,
    description: `A secret group's timeline is group.not_found (404) to anyone but its members. ${SHOWN}`,
    tags: ["timelines", "groups"],
    access: publicAccess,
    scopes: ["read:statuses"],
    params: GroupParams,
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, module, url }) => timelineReply(module, { group: params.groupId }, caller, query, url),
  }),
  route({
    method: "GET",
    path: "/api/v1/timelines/channel/{channelId}",
    summary: `The statuses posted in a channel of a group, newest first, ${PAGING}`,
    description: `A secret group's channels are group.channel_not_found (404) to anyone but its members. ${SHOWN}`,
    tags: ["timelines", "groups"],
    access: publicAccess,
    scopes: ["read:statuses"],
    params: z.object({ channelId: z.string().min(1).max(64) }),
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, module, url }) => timelineReply(module, { channel: params.channelId }, caller, query, url),
  }),
];
