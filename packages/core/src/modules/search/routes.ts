import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { FullTagJson } from "../../mastodon/entities/tag.js";
import { clampLimit } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zBool, zInt } from "../../platform/http/schemas.js";

/** Search: Mastodon's `GET /api/v2/search` and `GET /api/v1/accounts/search`. */

const SEARCH_PAGE = { defaultLimit: 20, maxLimit: 40 };
const ACCOUNT_SEARCH_PAGE = { defaultLimit: 40, maxLimit: 80 };

const SearchQuery = z.object({
  q: z.string().max(1000),
  type: z.enum(["accounts", "hashtags", "statuses"]).optional(),
  resolve: zBool.optional(),
  following: zBool.optional(),
  account_id: z.string().max(64).optional(),
  exclude_unreviewed: zBool.optional(),
  max_id: z.string().max(64).optional(),
  min_id: z.string().max(64).optional(),
  limit: zInt.optional(),
  offset: zInt.pipe(z.number().int().min(0)).optional(),
});

const AccountSearchQuery = z.object({
  q: z.string().max(1000),
  limit: zInt.optional(),
  offset: zInt.pipe(z.number().int().min(0)).optional(),
  resolve: zBool.optional(),
  following: zBool.optional(),
});

export const searchRoutes = [
  route({
    method: "GET",
    path: "/api/v2/search",
    summary: "Searches accounts, hashtags and (signed in) posts with the storage engine's full-text index",
    description:
      "With `resolve` (signed in), a handle (`@user@host`) or an actor URL of another server is looked up there and the account stored and returned alone. Guests may not use `offset` or `resolve` (401) and find no posts.",
    tags: ["search"],
    access: publicAccess,
    scopes: ["read:search"],
    query: SearchQuery,
    response: z.object({ accounts: z.array(AccountJson), statuses: z.array(StatusJson), hashtags: z.array(FullTagJson) }),
    handler: async ({ caller, query, services }) => {
      if (caller.kind === "app") throw new KithError("auth.forbidden");
      const viewerId = caller.kind === "user" ? caller.accountId : null;
      return services.search.search(viewerId, {
        q: query.q,
        ...(query.type && { type: query.type }),
        ...(query.resolve !== undefined && { resolve: query.resolve }),
        ...(query.following !== undefined && { following: query.following }),
        ...(query.account_id && { accountId: query.account_id }),
        ...(query.exclude_unreviewed !== undefined && { excludeUnreviewed: query.exclude_unreviewed }),
        ...(query.max_id && { maxId: query.max_id }),
        ...(query.min_id && { minId: query.min_id }),
        limit: clampLimit(query.limit, SEARCH_PAGE),
        offset: query.offset ?? 0,
      });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/search",
    summary: "Searches accounts by username or display name (prefix and full text)",
    tags: ["search"],
    access: authenticated,
    scopes: ["read:accounts"],
    query: AccountSearchQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, query, services }) =>
      services.search.accountSearch(caller.kind === "user" ? caller.accountId : null, {
        q: query.q,
        ...(query.following !== undefined && { following: query.following }),
        ...(query.resolve !== undefined && { resolve: query.resolve }),
        limit: clampLimit(query.limit, ACCOUNT_SEARCH_PAGE),
        offset: query.offset ?? 0,
      }),
  }),
];
