import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { MutedAccountJson, RelationshipJson } from "../../mastodon/entities/relationship.js";
import { ACCOUNTS_PAGE, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zBool, zInt } from "../../platform/http/schemas.js";
import { AccountParams, accountPageReply, userOf } from "../lists/account-list-routes.js";

/** Blocks and mutes (Mastodon's). */

const LIST_PAGE = { defaultLimit: 40, maxLimit: ACCOUNTS_PAGE.maxLimit };
const MuteBody = z.object({
  notifications: zBool.optional(),
  /** Seconds; 0 mutes for ever. */
  duration: zInt.pipe(z.number().int().min(0).max(10 * 366 * 24 * 3600)).optional(),
});

export const blockMuteRoutes = [
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/block",
    summary: "Blocks an account: hides it both ways and ends follows and requests between the two",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:blocks", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.groupAccounts.assertVisible(accountId, params.id);
      await services.blocksMutes.block(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/unblock",
    summary: "Unblocks an account",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:blocks", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.groupAccounts.assertVisible(accountId, params.id);
      await services.blocksMutes.unblock(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/mute",
    summary: "Mutes an account, with its notifications unless `notifications=false`, for `duration` seconds (0: for ever)",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:mutes", "follow"],
    params: AccountParams,
    body: MuteBody,
    response: RelationshipJson,
    handler: async ({ caller, params, body, services }) => {
      const { accountId } = userOf(caller);
      await services.groupAccounts.assertVisible(accountId, params.id);
      await services.blocksMutes.mute(accountId, params.id, {
        ...(body.notifications !== undefined && { notifications: body.notifications }),
        ...(body.duration !== undefined && { durationSeconds: body.duration }),
      });
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/unmute",
    summary: "Unmutes an account",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:mutes", "follow"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, services }) => {
      const { accountId } = userOf(caller);
      await services.groupAccounts.assertVisible(accountId, params.id);
      await services.blocksMutes.unmute(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/blocks",
    summary: "Accounts the caller blocks, newest block first, paged with `Link`",
    tags: ["blocks"],
    access: authenticated,
    scopes: ["read:blocks", "follow"],
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, LIST_PAGE);
      return accountPageReply(services, url, await services.relationships.blocks(userOf(caller).accountId, page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/mutes",
    summary: "Accounts the caller mutes (expired mutes left out), newest first, each with `mute_expires_at`, paged with `Link`",
    tags: ["mutes"],
    access: authenticated,
    scopes: ["read:mutes", "follow"],
    query: idPageQuery,
    response: z.array(MutedAccountJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, LIST_PAGE);
      const mutes = await services.relationships.mutes(userOf(caller).accountId, page);
      return accountPageReply(services, url, mutes, page.limit, (account, index) => ({
        ...account,
        mute_expires_at: mutes.entries[index]?.expiresAt ?? null,
      }));
    },
  }),
];
