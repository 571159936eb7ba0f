import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { FILTER_ACTIONS, FILTER_CONTEXTS, FilterJson, FilterKeywordJson, FilterStatusJson, V1FilterJson } from "../../mastodon/entities/filter.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool, zInt, zList } from "../../platform/http/schemas.js";
import { serializeFilter, serializeFilterKeyword, serializeFilterStatus, serializeV1Filter } from "../../mastodon/serializers/filter.js";

/** Content filters: Mastodon's v2 API, and v1 (one keyword per filter) over the same data. */

const READ = ["read:filters"];
const WRITE = ["write:filters"];

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

const Context = zList(z.enum(FILTER_CONTEXTS)).pipe(z.array(z.enum(FILTER_CONTEXTS)).min(1));
/** `expires_in` in seconds; an empty value (forms send one to clear it) means "never". */
const ExpiresIn = z.preprocess((value) => (value === "" ? null : value), zInt.pipe(z.number().int().min(1)).nullable());

/** `keywords_attributes[]` arrives as a list, or from forms with indexes as an object of index keys. */
function listOf<T extends z.ZodType>(item: T) {
  return z.preprocess(
    (value) => (value && typeof value === "object" && !Array.isArray(value) ? Object.values(value) : value),
    z.array(item),
  );
}

const KeywordAttributes = z.object({
  id: z.string().max(64).optional(),
  keyword: z.string().max(512).optional(),
  whole_word: zBool.optional(),
  _destroy: zBool.optional(),
});

const FilterParams = z.object({ filterId: z.string().max(64) });
const KeywordParams = z.object({ keywordId: z.string().max(64) });
const StatusParams = z.object({ filterStatusId: z.string().max(64) });

const CreateBody = z.object({
  title: z.string().trim().min(1).max(256),
  context: Context,
  filter_action: z.enum(FILTER_ACTIONS).optional(),
  expires_in: ExpiresIn.optional(),
  keywords_attributes: listOf(KeywordAttributes.extend({ keyword: z.string().trim().min(1).max(512) })).optional(),
});

const UpdateBody = z.object({
  title: z.string().trim().min(1).max(256).optional(),
  context: Context.optional(),
  filter_action: z.enum(FILTER_ACTIONS).optional(),
  expires_in: ExpiresIn.optional(),
  keywords_attributes: listOf(KeywordAttributes).optional(),
});

const KeywordBody = z.object({ keyword: z.string().trim().min(1).max(512), whole_word: zBool.optional() });
const KeywordUpdateBody = z.object({ keyword: z.string().trim().min(1).max(512).optional(), whole_word: zBool.optional() });

const V1Body = z.object({
  phrase: z.string().trim().min(1).max(512),
  context: Context,
  irreversible: zBool.optional(),
  whole_word: zBool.optional(),
  expires_in: ExpiresIn.optional(),
});

const v2Routes = [
  route({
    method: "GET",
    path: "/api/v2/filters",
    summary: "The caller's filters, with their keywords and posts",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    response: z.array(FilterJson),
    handler: async ({ caller, services }) => (await services.filters.list(userOf(caller).accountId)).map(serializeFilter),
  }),
  route({
    method: "POST",
    path: "/api/v2/filters",
    summary: "Creates a filter, with keywords given as keywords_attributes[]",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    body: CreateBody,
    response: FilterJson,
    handler: async ({ caller, body, services }) =>
      serializeFilter(
        await services.filters.create(userOf(caller).accountId, {
          title: body.title,
          context: body.context,
          ...(body.filter_action && { action: body.filter_action }),
          ...(body.expires_in !== undefined && { expiresIn: body.expires_in }),
          keywords: (body.keywords_attributes ?? []).map((k) => ({
            keyword: k.keyword,
            ...(k.whole_word !== undefined && { wholeWord: k.whole_word }),
          })),
        }),
      ),
  }),
  route({
    method: "GET",
    path: "/api/v2/filters/{filterId}",
    summary: "One of the caller's filters",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    params: FilterParams,
    response: FilterJson,
    handler: async ({ caller, params, services }) => serializeFilter(await services.filters.get(userOf(caller).accountId, params.filterId)),
  }),
  route({
    method: "PUT",
    path: "/api/v2/filters/{filterId}",
    summary: "Changes a filter; keywords_attributes[] adds (no id), changes (id) or removes (id and _destroy) keywords",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: FilterParams,
    body: UpdateBody,
    response: FilterJson,
    handler: async ({ caller, params, body, services }) =>
      serializeFilter(
        await services.filters.update(userOf(caller).accountId, params.filterId, {
          ...(body.title !== undefined && { title: body.title }),
          ...(body.context !== undefined && { context: body.context }),
          ...(body.filter_action !== undefined && { action: body.filter_action }),
          ...(body.expires_in !== undefined && { expiresIn: body.expires_in }),
          ...(body.keywords_attributes && {
            keywords: body.keywords_attributes.map((k) => ({
              ...(k.id !== undefined && { id: k.id }),
              ...(k.keyword !== undefined && { keyword: k.keyword.trim() }),
              ...(k.whole_word !== undefined && { wholeWord: k.whole_word }),
              ...(k._destroy !== undefined && { destroy: k._destroy }),
            })),
          }),
        }),
      ),
  }),
  route({
    method: "DELETE",
    path: "/api/v2/filters/{filterId}",
    summary: "Deletes a filter with its keywords and posts",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: FilterParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.filters.remove(userOf(caller).accountId, params.filterId);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/filters/{filterId}/keywords",
    summary: "The keywords of a filter",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    params: FilterParams,
    response: z.array(FilterKeywordJson),
    handler: async ({ caller, params, services }) =>
      (await services.filters.get(userOf(caller).accountId, params.filterId)).keywords.map(serializeFilterKeyword),
  }),
  route({
    method: "POST",
    path: "/api/v2/filters/{filterId}/keywords",
    summary: "Adds a keyword to a filter",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: FilterParams,
    body: KeywordBody,
    response: FilterKeywordJson,
    handler: async ({ caller, params, body, services }) =>
      serializeFilterKeyword(
        await services.filters.addKeyword(userOf(caller).accountId, params.filterId, {
          keyword: body.keyword,
          ...(body.whole_word !== undefined && { wholeWord: body.whole_word }),
        }),
      ),
  }),
  route({
    method: "GET",
    path: "/api/v2/filters/keywords/{keywordId}",
    summary: "One keyword of one of the caller's filters",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    params: KeywordParams,
    response: FilterKeywordJson,
    handler: async ({ caller, params, services }) =>
      serializeFilterKeyword((await services.filters.getKeyword(userOf(caller).accountId, params.keywordId)).keyword),
  }),
  route({
    method: "PUT",
    path: "/api/v2/filters/keywords/{keywordId}",
    summary: "Changes a keyword",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: KeywordParams,
    body: KeywordUpdateBody,
    response: FilterKeywordJson,
    handler: async ({ caller, params, body, services }) =>
      serializeFilterKeyword(
        await services.filters.updateKeyword(userOf(caller).accountId, params.keywordId, {
          ...(body.keyword !== undefined && { keyword: body.keyword }),
          ...(body.whole_word !== undefined && { wholeWord: body.whole_word }),
        }),
      ),
  }),
  route({
    method: "DELETE",
    path: "/api/v2/filters/keywords/{keywordId}",
    summary: "Removes a keyword from its filter",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: KeywordParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.filters.removeKeyword(userOf(caller).accountId, params.keywordId);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/filters/{filterId}/statuses",
    summary: "The posts a filter names",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    params: FilterParams,
    response: z.array(FilterStatusJson),
    handler: async ({ caller, params, services }) =>
      (await services.filters.get(userOf(caller).accountId, params.filterId)).statuses.map(serializeFilterStatus),
  }),
  route({
    method: "POST",
    path: "/api/v2/filters/{filterId}/statuses",
    summary: "Adds a post to a filter",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: FilterParams,
    body: z.object({ status_id: z.string().min(1).max(64) }),
    response: FilterStatusJson,
    handler: async ({ caller, params, body, services }) =>
      serializeFilterStatus(await services.filters.addStatus(userOf(caller).accountId, params.filterId, body.status_id)),
  }),
  route({
    method: "GET",
    path: "/api/v2/filters/statuses/{filterStatusId}",
    summary: "One post of one of the caller's filters",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    params: StatusParams,
    response: FilterStatusJson,
    handler: async ({ caller, params, services }) =>
      serializeFilterStatus(await services.filters.getStatus(userOf(caller).accountId, params.filterStatusId)),
  }),
  route({
    method: "DELETE",
    path: "/api/v2/filters/statuses/{filterStatusId}",
    summary: "Removes a post from its filter",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: StatusParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.filters.removeStatus(userOf(caller).accountId, params.filterStatusId);
      return {};
    },
  }),
];

const v1Routes = [
  route({
    method: "GET",
    path: "/api/v1/filters",
    summary: "The caller's filter keywords, each as a v1 filter",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    response: z.array(V1FilterJson),
    handler: async ({ caller, services }) =>
      (await services.filters.listV1(userOf(caller).accountId)).map(({ filter, keyword }) => serializeV1Filter(filter, keyword)),
  }),
  route({
    method: "POST",
    path: "/api/v1/filters",
    summary: "Creates a v1 filter: a filter of one keyword, titled by the phrase",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    body: V1Body,
    response: V1FilterJson,
    handler: async ({ caller, body, services }) => {
      const { filter, keyword } = await services.filters.createV1(userOf(caller).accountId, {
        phrase: body.phrase,
        context: body.context,
        ...(body.irreversible !== undefined && { irreversible: body.irreversible }),
        ...(body.whole_word !== undefined && { wholeWord: body.whole_word }),
        ...(body.expires_in !== undefined && { expiresIn: body.expires_in }),
      });
      return serializeV1Filter(filter, keyword);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/filters/{keywordId}",
    summary: "One v1 filter",
    tags: ["filters"],
    access: authenticated,
    scopes: READ,
    params: KeywordParams,
    response: V1FilterJson,
    handler: async ({ caller, params, services }) => {
      const { filter, keyword } = await services.filters.getKeyword(userOf(caller).accountId, params.keywordId);
      return serializeV1Filter(filter, keyword);
    },
  }),
  route({
    method: "PUT",
    path: "/api/v1/filters/{keywordId}",
    summary: "Changes a v1 filter: the keyword, and the context, expiry and action of the filter holding it",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: KeywordParams,
    body: V1Body.partial(),
    response: V1FilterJson,
    handler: async ({ caller, params, body, services }) => {
      const { filter, keyword } = await services.filters.updateV1(userOf(caller).accountId, params.keywordId, {
        ...(body.phrase !== undefined && { phrase: body.phrase }),
        ...(body.context !== undefined && { context: body.context }),
        ...(body.irreversible !== undefined && { irreversible: body.irreversible }),
        ...(body.whole_word !== undefined && { wholeWord: body.whole_word }),
        ...(body.expires_in !== undefined && { expiresIn: body.expires_in }),
      });
      return serializeV1Filter(filter, keyword);
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/filters/{keywordId}",
    summary: "Deletes a v1 filter (its filter too when nothing else is left in it)",
    tags: ["filters"],
    access: authenticated,
    scopes: WRITE,
    params: KeywordParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.filters.removeV1(userOf(caller).accountId, params.keywordId);
      return Reply.json({});
    },
  }),
];

export const filterRoutes = [...v2Routes, ...v1Routes];
