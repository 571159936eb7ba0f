import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { RelationshipJson } from "../../mastodon/entities/relationship.js";
import { ACCOUNTS_PAGE, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zBool, zList } from "../../platform/http/schemas.js";
import { AccountParams, accountPageReply, userOf } from "../lists/account-list-routes.js";

/** Following (Mastodon's follow, unfollow, remove_from_followers) and the follow requests of locked accounts. */

const FollowBody = z.object({
  reblogs: zBool.optional(),
  notify: zBool.optional(),
  languages: zList(z.string().regex(/^[a-z]{2,3}$/)).pipe(z.array(z.string()).max(100)).optional(),
});

export const followRoutes = [
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/follow",
    summary:
      "Follows an account (a request when it is locked or remote); `reblogs`, `notify` and `languages` set the follow's options, and change them when already following",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:follows", "follow"],
    params: AccountParams,
    body: FollowBody,
    response: RelationshipJson,
    handler: async ({ caller, params, body, services }) => {
      const { accountId } = userOf(caller);
      await services.follows.follow(accountId, params.id, {
        ...(body.reblogs !== undefined && { reblogs: body.reblogs }),
        ...(body.notify !== undefined && { notify: body.notify }),
        ...(body.languages !== undefined && { languages: body.languages }),
      });
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/unfollow",
    summary: "Stops following an account, or withdraws a pending request",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:follows", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.follows.unfollow(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/remove_from_followers",
    summary: "Makes an account stop following the caller",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:follows", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.follows.removeFromFollowers(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/follow_requests",
    summary: "Accounts asking to follow the caller, newest first, paged with `Link`",
    tags: ["follow_requests"],
    access: authenticated,
    scopes: ["read:follows", "follow"],
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, { defaultLimit: 40, maxLimit: ACCOUNTS_PAGE.maxLimit });
      return accountPageReply(services, url, await services.relationships.followRequests(userOf(caller).accountId, page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/follow_requests/{id}/authorize",
    summary: "Accepts the follow request of the account `id`",
    tags: ["follow_requests"],
    access: authenticated,
    scopes: ["write:follows", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.follows.authorize(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/follow_requests/{id}/reject",
    summary: "Refuses the follow request of the account `id`",
    tags: ["follow_requests"],
    access: authenticated,
    scopes: ["write:follows", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.follows.reject(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
];
