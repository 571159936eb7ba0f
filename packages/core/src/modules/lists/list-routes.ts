import { z } from "zod";
import type { ListRecord } from "./list-service.js";
import { authenticated } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { type ListEntity, ListJson } from "../../mastodon/entities/list.js";
import { ACCOUNTS_PAGE, clampLimit, idPageLinks } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool, zInt, zList } from "../../platform/http/schemas.js";
import { signedInUser } from "../timelines/routes.js";

/** Lists (Mastodon's): named sets of followed accounts, each with a timeline. */

const READ = ["read:lists"];
const WRITE = ["write:lists"];

function serializeList(list: ListRecord): ListEntity {
  return { id: list.id, title: list.title, replies_policy: list.repliesPolicy, exclusive: list.exclusive };
}

const ListParams = z.object({ listId: z.string().max(64) });
const RepliesPolicy = z.enum(["followed", "list", "none"]);
const CreateBody = z.object({ title: z.string().max(1000), replies_policy: RepliesPolicy.optional(), exclusive: zBool.optional() });
const UpdateBody = z.object({
  title: z.string().max(1000).optional(),
  replies_policy: RepliesPolicy.optional(),
  exclusive: zBool.optional(),
});
const AccountIdsBody = z.object({ account_ids: zList(z.string().max(64)).pipe(z.array(z.string()).min(1).max(250)) });
const MembersQuery = z.object({
  limit: zInt.optional(),
  max_id: z.string().max(64).optional(),
  since_id: z.string().max(64).optional(),
  min_id: z.string().max(64).optional(),
});

export const listRoutes = [
  route({
    method: "GET",
    path: "/api/v1/lists",
    summary: "The caller's lists",
    tags: ["lists"],
    access: authenticated,
    scopes: READ,
    response: z.array(ListJson),
    handler: async ({ caller, services }) => (await services.lists.list(signedInUser(caller).accountId)).map(serializeList),
  }),
  route({
    method: "POST",
    path: "/api/v1/lists",
    summary: "Creates a list (title; replies_policy followed, list or none; exclusive keeps its members out of home)",
    tags: ["lists"],
    access: authenticated,
    scopes: WRITE,
    body: CreateBody,
    response: ListJson,
    handler: async ({ caller, body, services }) =>
      serializeList(
        await services.lists.create(signedInUser(caller).accountId, {
          title: body.title,
          ...(body.replies_policy && { repliesPolicy: body.replies_policy }),
          ...(body.exclusive !== undefined && { exclusive: body.exclusive }),
        }),
      ),
  }),
  route({
    method: "GET",
    path: "/api/v1/lists/{listId}",
    summary: "One of the caller's lists",
    tags: ["lists"],
    access: authenticated,
    scopes: READ,
    params: ListParams,
    response: ListJson,
    handler: async ({ caller, params, services }) => serializeList(await services.lists.get(signedInUser(caller).accountId, params.listId)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/lists/{listId}",
    summary: "Changes a list's title, replies policy or exclusivity",
    tags: ["lists"],
    access: authenticated,
    scopes: WRITE,
    params: ListParams,
    body: UpdateBody,
    response: ListJson,
    handler: async ({ caller, params, body, services }) =>
      serializeList(
        await services.lists.update(signedInUser(caller).accountId, params.listId, {
          ...(body.title !== undefined && { title: body.title }),
          ...(body.replies_policy && { repliesPolicy: body.replies_policy }),
          ...(body.exclusive !== undefined && { exclusive: body.exclusive }),
        }),
      ),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/lists/{listId}",
    summary: "Deletes a list",
    tags: ["lists"],
    access: authenticated,
    scopes: WRITE,
    params: ListParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.lists.remove(signedInUser(caller).accountId, params.listId);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/lists/{listId}/accounts",
    summary: "Accounts in a list; limit=0 returns them all",
    tags: ["lists"],
    access: authenticated,
    scopes: READ,
    params: ListParams,
    query: MembersQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, params, query, services, url }) => {
      const all = query.limit === 0;
      const limit = clampLimit(query.limit, { defaultLimit: 40, maxLimit: ACCOUNTS_PAGE.maxLimit });
      const ids = await services.lists.members(signedInUser(caller).accountId, params.listId, {
        limit: all ? null : limit,
        ...(query.max_id && { maxId: query.max_id }),
        ...(query.since_id && { sinceId: query.since_id }),
      });
      const rendered = await services.feedAccounts.render(ids);
      const accounts = ids.flatMap((id) => {
        const account = rendered.get(id);
        return account ? [account] : [];
      });
      const link = all ? null : idPageLinks(url, ids, limit);
      return Reply.json(accounts, link ? { headers: { link } } : {});
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/lists/{listId}/accounts",
    summary: "Adds accounts the caller follows to a list (422 for one not followed)",
    tags: ["lists"],
    access: authenticated,
    scopes: WRITE,
    params: ListParams,
    body: AccountIdsBody,
    response: z.object({}),
    handler: async ({ caller, params, body, services }) => {
      await services.lists.addMembers(signedInUser(caller).accountId, params.listId, body.account_ids);
      return {};
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/lists/{listId}/accounts",
    summary: "Removes accounts from a list",
    tags: ["lists"],
    access: authenticated,
    scopes: WRITE,
    params: ListParams,
    body: AccountIdsBody,
    response: z.object({}),
    handler: async ({ caller, params, body, services }) => {
      await services.lists.removeMembers(signedInUser(caller).accountId, params.listId, body.account_ids);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{accountId}/lists",
    summary: "The caller's lists that hold an account",
    tags: ["lists"],
    access: authenticated,
    scopes: READ,
    params: z.object({ accountId: z.string().max(64) }),
    response: z.array(ListJson),
    handler: async ({ caller, params, services }) =>
      (await services.lists.holding(signedInUser(caller).accountId, params.accountId)).map(serializeList),
  }),
];
