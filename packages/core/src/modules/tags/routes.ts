import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { FullTagJson } from "../../mastodon/entities/tag.js";
import { clampLimit, idPageLinks, idPageQuery } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/** Hashtags: one tag with its history, following and unfollowing, and the tags the caller follows. */

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

const TagParams = z.object({ name: z.string().min(1).max(200) });
const FOLLOWED_PAGE = { defaultLimit: 100, maxLimit: 200 };

export const tagRoutes = [
  route({
    method: "GET",
    path: "/api/v1/tags/{name}",
    summary: "A hashtag with its use over the last week and, signed in, whether the caller follows it",
    tags: ["tags"],
    access: publicAccess,
    params: TagParams,
    response: FullTagJson,
    handler: async ({ caller, params, services }) => services.tags.get(params.name, caller.kind === "user" ? caller.accountId : null),
  }),
  route({
    method: "POST",
    path: "/api/v1/tags/{name}/follow",
    summary: "Follows a hashtag: its public posts reach the caller's home timeline",
    tags: ["tags"],
    access: authenticated,
    scopes: ["write:follows"],
    params: TagParams,
    response: FullTagJson,
    handler: async ({ caller, params, services }) => services.tags.follow(userOf(caller).accountId, params.name),
  }),
  route({
    method: "POST",
    path: "/api/v1/tags/{name}/unfollow",
    summary: "Stops following a hashtag",
    tags: ["tags"],
    access: authenticated,
    scopes: ["write:follows"],
    params: TagParams,
    response: FullTagJson,
    handler: async ({ caller, params, services }) => services.tags.unfollow(userOf(caller).accountId, params.name),
  }),
  route({
    method: "GET",
    path: "/api/v1/followed_tags",
    summary: "The hashtags the caller follows, most recently followed first",
    tags: ["tags"],
    access: authenticated,
    scopes: ["read:follows"],
    query: idPageQuery,
    response: z.array(FullTagJson),
    handler: async ({ caller, query, services, url }) => {
      const limit = clampLimit(query.limit, FOLLOWED_PAGE);
      const rows = await services.tags.followed(userOf(caller).accountId, {
        limit,
        ...(query.max_id && { maxId: query.max_id }),
        ...(query.min_id && { minId: query.min_id }),
        ...(query.since_id && { sinceId: query.since_id }),
      });
      const link = idPageLinks(
        url,
        rows.map((row) => row.cursor),
        limit,
      );
      return Reply.json(
        rows.map((row) => row.tag),
        link ? { headers: { link } } : {},
      );
    },
  }),
];
