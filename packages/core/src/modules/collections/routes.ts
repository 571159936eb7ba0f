import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { clampLimit } from "../../platform/http/pagination.js";
import { zBool, zInt, zList } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import type { CollectionService } from "./collection-service.js";

const route = moduleRoute<CollectionService>();

function userIdOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

const CollectionItemJson = z.object({
  id: z.string(),
  account_id: z.string(),
  state: z.enum(["pending", "accepted"]),
  created_at: z.string(),
});

/** Mastodon's Collection entity. */
const CollectionJson = z.object({
  id: z.string(),
  account_id: z.string(),
  uri: z.string(),
  url: z.string().nullable(),
  name: z.string(),
  description: z.string(),
  language: z.string().nullable(),
  local: z.boolean(),
  sensitive: z.boolean(),
  discoverable: z.boolean(),
  tag: z.object({ name: z.string(), url: z.string() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  item_count: z.number().int(),
  items: z.array(CollectionItemJson),
});

const Name = z.string().trim().min(1).max(40);
const Description = z.string().max(100);
const Language = z.string().regex(/^[a-z]{2}$/, "an ISO 639-1 code");
const TagName = z.string().max(200);

const CollectionParams = z.object({ id: z.string().min(1).max(64) });
const ItemParams = CollectionParams.extend({ itemId: z.string().min(1).max(64) });
const ListQuery = z.object({ limit: zInt.optional(), offset: zInt.pipe(z.number().int().min(0)).optional() });
const LIST_PAGE = { defaultLimit: 40, maxLimit: 80 };

function pageOf(query: z.infer<typeof ListQuery>): { offset: number; limit: number } {
  return { offset: query.offset ?? 0, limit: clampLimit(query.limit, LIST_PAGE) };
}

const updateBody = z.object({
  name: Name.optional(),
  description: Description.nullable().optional(),
  language: Language.nullable().optional(),
  tag_name: TagName.nullable().optional(),
  sensitive: zBool.nullable().optional(),
  discoverable: zBool.nullable().optional(),
});

function updateRoute(method: "PUT" | "PATCH") {
  return route({
    method,
    path: "/api/v1/collections/{id}",
    summary: "Edits the caller's collection: name, description, language, hashtag (`tag_name`), sensitive, discoverable",
    tags: ["collections"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: CollectionParams,
    body: updateBody,
    response: z.object({ collection: CollectionJson }),
    handler: async ({ caller, params, body, module }) => ({
      collection: await module.update(userIdOf(caller), params.id, {
        ...(body.name !== undefined && { name: body.name }),
        ...(body.description !== undefined && { description: body.description }),
        ...(body.language !== undefined && { language: body.language }),
        ...(body.tag_name !== undefined && { tagName: body.tag_name }),
        ...(body.sensitive !== undefined && { sensitive: body.sensitive }),
        ...(body.discoverable !== undefined && { discoverable: body.discoverable }),
      }),
    }),
  });
}

export const collectionRoutes = [
  route({
    method: "POST",
    path: "/api/v1/collections",
    summary: `Creates a collection of accounts the caller recommends (a name of up to 40 characters, up to 25 accounts in \`account_ids\`)`,
    tags: ["collections"],
    access: authenticated,
    scopes: ["write:accounts"],
    body: updateBody.extend({ name: Name, account_ids: zList(z.string().min(1).max(64)).optional() }),
    response: z.object({ collection: CollectionJson }),
    handler: async ({ caller, body, module }) => ({
      collection: await module.create(
        userIdOf(caller),
        {
          name: body.name,
          description: body.description,
          language: body.language,
          tagName: body.tag_name,
          sensitive: body.sensitive,
          discoverable: body.discoverable,
        },
        body.account_ids ?? [],
      ),
    }),
  }),
  route({
    method: "GET",
    path: "/api/v1/collections/{id}",
    summary: "A collection, with the accounts of its owner and of its items",
    tags: ["collections"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: CollectionParams,
    response: z.object({ collection: CollectionJson, accounts: z.array(AccountJson) }),
    handler: ({ caller, params, module }) => module.show(caller.kind === "user" ? caller.accountId : null, params.id),
  }),
  updateRoute("PATCH"),
  updateRoute("PUT"),
  route({
    method: "DELETE",
    path: "/api/v1/collections/{id}",
    summary: "Deletes the caller's collection",
    tags: ["collections"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: CollectionParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.delete(userIdOf(caller), params.id);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/collections/{id}/items",
    summary: "Adds an account to the caller's collection",
    tags: ["collections"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: CollectionParams,
    body: z.object({ account_id: z.string().min(1).max(64) }),
    response: z.object({ collection_item: CollectionItemJson }),
    handler: async ({ caller, params, body, module }) => ({
      collection_item: await module.addItem(userIdOf(caller), params.id, body.account_id),
    }),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/collections/{id}/items/{itemId}",
    summary: "Removes an account from the caller's collection",
    tags: ["collections"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: ItemParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.removeItem(userIdOf(caller), params.id, params.itemId);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/collections/{id}/items/{itemId}/revoke",
    summary: "Takes the caller out of someone else's collection",
    tags: ["collections"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: ItemParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.revoke(userIdOf(caller), params.id, params.itemId);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/collections",
    summary: "An account's collections, newest first (the undiscoverable ones only to their owner), paged with `offset` and `limit`",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: z.object({ id: z.string().min(1).max(64) }),
    query: ListQuery,
    response: z.object({ collections: z.array(CollectionJson) }),
    handler: async ({ caller, params, query, module }) => ({
      collections: await module.ofAccount(caller.kind === "user" ? caller.accountId : null, params.id, pageOf(query)),
    }),
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/in_collections",
    summary: "The discoverable collections an account is in, newest first, paged with `offset` and `limit`",
    tags: ["accounts"],
    access: authenticated,
    scopes: ["read:accounts"],
    params: z.object({ id: z.string().min(1).max(64) }),
    query: ListQuery,
    response: z.object({ collections: z.array(CollectionJson) }),
    handler: async ({ caller, params, query, module }) => ({
      collections: await module.including(userIdOf(caller), params.id, pageOf(query)),
    }),
  }),
];
