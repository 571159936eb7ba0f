import { z } from "zod";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { ACCOUNTS_PAGE, clampLimit } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zInt } from "../../platform/http/schemas.js";
import { userOf } from "../lists/account-list-routes.js";

/**
 * The spec's remote collections (followers and following of a user of
 * another server, read over ActivityPub), and account migration, which
 * Mastodon keeps in its web settings: the smallest client API for it.
 */

/** Far enough for any page a person reads; beyond it a collection is not walked. */
const MAX_OFFSET = 10_000;

const RemoteUserParams = z.object({ userNameFull: z.string().min(3).max(320) });
const OffsetQuery = z.object({
  offset: zInt.pipe(z.number().int().min(0).max(MAX_OFFSET)).optional(),
  limit: zInt.optional(),
});
const AcctBody = z.object({ acct: z.string().min(1).max(2000) });
const AliasesJson = z.object({ also_known_as: z.array(z.string()) });

function remoteCollectionRoute(which: "followers" | "following") {
  return route({
    method: "GET",
    path: `/api/v1/users/remote/{userNameFull}/${which}`,
    summary:
      which === "followers"
        ? "Followers of a user of another server (`user@host`), read from its server; `offset` (default 0) and `limit` (default 20, at most 80)"
        : "Accounts a user of another server (`user@host`) follows, read from its server; `offset` (default 0) and `limit` (default 20, at most 80)",
    description: "Local users are refused with 422; an unknown user is 404; a server that does not answer is 502.",
    tags: ["users"],
    access: publicAccess,
    params: RemoteUserParams,
    query: OffsetQuery,
    response: z.array(AccountJson),
    handler: ({ params, query, services }) =>
      services.remoteAccounts.collection(params.userNameFull, which, {
        offset: query.offset ?? 0,
        limit: clampLimit(query.limit, ACCOUNTS_PAGE),
      }),
  });
}

export const remoteUserRoutes = [
  remoteCollectionRoute("followers"),
  remoteCollectionRoute("following"),
  route({
    method: "GET",
    path: "/api/v1/accounts/aliases",
    summary: "The actor URIs the caller's account says it also is (`alsoKnownAs`)",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["read:accounts"],
    response: AliasesJson,
    handler: async ({ caller, services }) => ({ also_known_as: await services.migrations.aliases(userOf(caller).accountId) }),
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/aliases",
    summary: "Names another account (`acct`: `user@host` or an actor URL) as one the caller's account also is, before that account moves here",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:accounts"],
    body: AcctBody,
    response: AliasesJson,
    handler: async ({ caller, body, services }) => ({ also_known_as: await services.migrations.addAlias(userOf(caller).accountId, body.acct) }),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/accounts/aliases",
    summary: "Removes an alias (`acct`)",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:accounts"],
    body: AcctBody,
    response: AliasesJson,
    handler: async ({ caller, body, services }) => ({
      also_known_as: await services.migrations.removeAlias(userOf(caller).accountId, body.acct),
    }),
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/migration",
    summary:
      "Moves the caller's account to another (`acct`), which must name it as an alias; needs `current_password`. Followers' servers are sent a Move",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:accounts"],
    body: AcctBody.extend({ current_password: z.string().min(1).max(1000) }),
    response: AccountJson,
    handler: async ({ caller, body, services }) => {
      const target = await services.migrations.moveTo(userOf(caller).accountId, body.acct, body.current_password);
      return services.accountViews.renderOne(target.id);
    },
  }),
];
