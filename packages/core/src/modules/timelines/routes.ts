import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { TimelinePage } from "./timeline-service.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { POSTS_PAGE, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool, zList } from "../../platform/http/schemas.js";

/** Timelines: Mastodon's home, public, hashtag and list timelines. */

/** The signed-in caller, for routes whose access rule already refused guests. */
export function signedInUser(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

/** The viewing account, or null for a guest or an application token. */
export function viewerOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

/** A rendered timeline page with its `Link` header, paged by the ids the page was read from. */
export function timelineReply(url: URL, page: TimelinePage, limit: number): Reply {
  const link = idPageLinks(url, page.pageIds, limit);
  return Reply.json(page.statuses, { texts: page.texts, ...(link && { headers: { link } }) });
}

const READ = ["read:statuses"];
const TagNames = zList(z.string().trim().min(1).max(256)).pipe(z.array(z.string()).max(10));

const PublicQuery = idPageQuery.extend({
  local: zBool.optional(),
  remote: zBool.optional(),
  only_media: zBool.optional(),
});

const TagQuery = PublicQuery.extend({ any: TagNames.optional(), all: TagNames.optional(), none: TagNames.optional() });

export const timelineRoutes = [
  route({
    method: "GET",
    path: "/api/v1/timelines/home",
    summary: "The caller's home timeline: posts and boosts of followed accounts and their own, newest first",
    tags: ["timelines"],
    access: authenticated,
    scopes: READ,
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, query, services, url }) => {
      const user = signedInUser(caller);
      const page = pageRequest(query, POSTS_PAGE);
      return timelineReply(url, await services.timelines.home(user.accountId, page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/timelines/public",
    summary: "Public posts of this server and the servers it knows (local or remote only, only with media)",
    tags: ["timelines"],
    access: publicAccess,
    scopes: READ,
    query: PublicQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const options = { local: query.local ?? false, remote: query.remote ?? false, onlyMedia: query.only_media ?? false };
      return timelineReply(url, await services.timelines.public(viewerOf(caller), options, page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/timelines/tag/{hashtag}",
    summary: "Public posts with a hashtag (and any[], all[], none[] of further tags)",
    tags: ["timelines"],
    access: publicAccess,
    scopes: READ,
    params: z.object({ hashtag: z.string().min(1).max(256) }),
    query: TagQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, services, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const result = await services.timelines.tag(
        viewerOf(caller),
        {
          tag: params.hashtag,
          any: query.any ?? [],
          all: query.all ?? [],
          none: query.none ?? [],
          local: query.local ?? false,
          remote: query.remote ?? false,
          onlyMedia: query.only_media ?? false,
        },
        page,
      );
      return timelineReply(url, result, page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/timelines/list/{listId}",
    summary: "Posts of the members of one of the caller's lists",
    tags: ["timelines"],
    access: authenticated,
    scopes: ["read:lists"],
    params: z.object({ listId: z.string().max(64) }),
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, params, query, services, url }) => {
      const user = signedInUser(caller);
      const page = pageRequest(query, POSTS_PAGE);
      return timelineReply(url, await services.timelines.list(user.accountId, params.listId, page), page.limit);
    },
  }),
];
