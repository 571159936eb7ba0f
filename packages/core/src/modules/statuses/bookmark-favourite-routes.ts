import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { POSTS_PAGE, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { actorOf, cursorPagedReply } from "./status-route-helpers.js";

/** The caller's bookmarks and favourites, newest first, paged with `Link` by when they were made. */
export const bookmarkFavouriteRoutes = [
  route({
    method: "GET",
    path: "/api/v1/bookmarks",
    summary: "Posts the caller bookmarked, newest bookmark first",
    tags: ["bookmarks"],
    access: authenticated,
    scopes: ["read:bookmarks"],
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const result = await services.statusQueries.bookmarks(actorOf(caller), page);
      return cursorPagedReply(url, result.items, result.cursors, page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/favourites",
    summary: "Posts the caller favourited, newest favourite first",
    tags: ["favourites"],
    access: authenticated,
    scopes: ["read:favourites"],
    query: idPageQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      const result = await services.statusQueries.favourites(actorOf(caller), page);
      return cursorPagedReply(url, result.items, result.cursors, page.limit);
    },
  }),
];
