import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import type { KithServices } from "../core-services.js";
import type { NotificationFilter, NotificationRecord } from "./notification-service.js";
import { authenticated } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { GroupedNotificationsJson, type NotificationEntity, NotificationJson, UnreadCountJson } from "../../mastodon/entities/notification.js";
import type { JsonTexts } from "../../platform/http/json-text.js";
import { type PageSize, clampLimit, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool, zInt, zList } from "../../platform/http/schemas.js";
import { signedInUser } from "../timelines/routes.js";

/**
 * Notifications: Mastodon's v1 and grouped v2 APIs, plus Kith's read state
 * (the spec's "update status"): each notification is read or unread;
 * `read=true|false` filters lists and counts; `POST .../{id}/read` and
 * `.../{id}/unread` mark one; `POST /api/v1/notifications/read` and
 * `/unread` (optional `max_id`) mark all, or all up to an id. Moving the
 * notifications marker marks the notifications up to it read too.
 */

const READ = ["read:notifications"];
const WRITE = ["write:notifications"];
const NOTIFICATIONS_PAGE: PageSize = { defaultLimit: 40, maxLimit: 80 };
const GROUPS_PAGE: PageSize = { defaultLimit: 40, maxLimit: 80 };
const TypeList = zList(z.string().max(64)).pipe(z.array(z.string()).max(20));

const FilterQuery = idPageQuery.extend({
  types: TypeList.optional(),
  exclude_types: TypeList.optional(),
  account_id: z.string().max(64).optional(),
  read: zBool.optional(),
});

function filterOf(query: z.infer<typeof FilterQuery>): NotificationFilter {
  return {
    ...(query.types && { types: query.types }),
    ...(query.exclude_types && { excludeTypes: query.exclude_types }),
    ...(query.account_id && { fromAccountId: query.account_id }),
    ...(query.read !== undefined && { read: query.read }),
  };
}

const CountQuery = z.object({
  limit: zInt.optional(),
  types: TypeList.optional(),
  exclude_types: TypeList.optional(),
  account_id: z.string().max(64).optional(),
});
const COUNT_PAGE: PageSize = { defaultLimit: 100, maxLimit: 1000 };

const IdParams = z.object({ notificationId: z.string().max(64) });
const GroupParams = z.object({ groupKey: z.string().max(200) });
const MarkAllBody = z.object({ max_id: z.string().max(64).optional() });

export const notificationRoutes = [
  route({
    method: "GET",
    path: "/api/v1/notifications",
    summary: "The caller's notifications, newest first (types[], exclude_types[], account_id, read)",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    query: FilterQuery,
    response: z.array(NotificationJson),
    handler: async ({ caller, query, services, url }) => {
      const user = signedInUser(caller);
      const page = pageRequest(query, NOTIFICATIONS_PAGE);
      const records = await services.notifications.list(user.accountId, filterOf(query), page);
      const texts: JsonTexts = new Map();
      const entities = await services.notificationViews.render(records, user.accountId, texts);
      const link = idPageLinks(
        url,
        records.map((r) => r.id),
        page.limit,
      );
      return Reply.json(entities, { texts, ...(link && { headers: { link } }) });
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/notifications/unread_count",
    summary: "How many of the caller's notifications are unread (up to limit, default 100, at most 1000)",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    query: CountQuery,
    response: UnreadCountJson,
    handler: async ({ caller, query, services }) => ({
      count: await services.notifications.unreadCount(signedInUser(caller).accountId, filterOf(query), clampLimit(query.limit, COUNT_PAGE)),
    }),
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/clear",
    summary: "Deletes all of the caller's notifications",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    response: z.object({}),
    handler: async ({ caller, services }) => {
      await services.notifications.clear(signedInUser(caller).accountId);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/read",
    summary: "Marks all of the caller's notifications read, or those up to max_id (Kith)",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    body: MarkAllBody,
    response: z.object({ updated: z.number().int() }),
    handler: async ({ caller, body, services }) => ({
      updated: await services.notifications.markAllRead(signedInUser(caller).accountId, body.max_id),
    }),
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/unread",
    summary: "Marks all of the caller's notifications unread, or those up to max_id (Kith)",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    body: MarkAllBody,
    response: z.object({ updated: z.number().int() }),
    handler: async ({ caller, body, services }) => ({
      updated: await services.notifications.markAllUnread(signedInUser(caller).accountId, body.max_id),
    }),
  }),
  route({
    method: "GET",
    path: "/api/v1/notifications/{notificationId}",
    summary: "One of the caller's notifications",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    params: IdParams,
    response: NotificationJson,
    handler: async ({ caller, params, services }) => {
      const user = signedInUser(caller);
      return renderOne(services, user.accountId, await services.notifications.get(user.accountId, params.notificationId));
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/{notificationId}/dismiss",
    summary: "Deletes one of the caller's notifications",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    params: IdParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.notifications.dismiss(signedInUser(caller).accountId, params.notificationId);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/{notificationId}/read",
    summary: "Marks one notification read (Kith)",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    params: IdParams,
    response: NotificationJson,
    handler: async ({ caller, params, services }) => {
      const user = signedInUser(caller);
      return renderOne(services, user.accountId, await services.notifications.markRead(user.accountId, params.notificationId));
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/{notificationId}/unread",
    summary: "Marks one notification unread (Kith)",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    params: IdParams,
    response: NotificationJson,
    handler: async ({ caller, params, services }) => {
      const user = signedInUser(caller);
      return renderOne(services, user.accountId, await services.notifications.markUnread(user.accountId, params.notificationId));
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/notifications",
    summary: "The caller's notifications folded into groups (grouped_types[]: favourite, reblog, follow by default)",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    query: FilterQuery.extend({ grouped_types: TypeList.optional(), expand_accounts: z.string().max(16).optional() }),
    response: GroupedNotificationsJson,
    handler: async ({ caller, query, services, url }) => {
      const user = signedInUser(caller);
      const page = pageRequest(query, GROUPS_PAGE);
      const result = await services.notifications.listGroups(user.accountId, filterOf(query), page, query.grouped_types);
      const body = await services.notificationViews.renderGroups(result.groups, user.accountId);
      const link = groupPageLinks(url, result.notificationIds, page.limit, result.groups.length >= page.limit);
      return Reply.json(body, link ? { headers: { link } } : {});
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/notifications/unread_count",
    summary: "How many notification groups of the caller are unread (up to limit)",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    query: CountQuery.extend({ grouped_types: TypeList.optional() }),
    response: UnreadCountJson,
    handler: async ({ caller, query, services }) => ({
      count: await services.notifications.unreadGroupCount(
        signedInUser(caller).accountId,
        filterOf(query),
        clampLimit(query.limit, COUNT_PAGE),
      ),
    }),
  }),
  route({
    method: "GET",
    path: "/api/v2/notifications/{groupKey}",
    summary: "One notification group of the caller",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    params: GroupParams,
    response: GroupedNotificationsJson,
    handler: async ({ caller, params, services }) => {
      const user = signedInUser(caller);
      const group = await services.notifications.getGroup(user.accountId, params.groupKey);
      return services.notificationViews.renderGroups([group], user.accountId);
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/notifications/{groupKey}/accounts",
    summary: "The accounts of every notification in one group, newest first",
    tags: ["notifications"],
    access: authenticated,
    scopes: READ,
    params: GroupParams,
    response: z.array(AccountJson),
    handler: async ({ caller, params, services }) => {
      const ids = await services.notifications.groupAccountIds(signedInUser(caller).accountId, params.groupKey);
      const rendered = await services.accountViews.render(ids);
      return ids.flatMap((id) => {
        const account = rendered.get(id);
        return account ? [account] : [];
      });
    },
  }),
  route({
    method: "POST",
    path: "/api/v2/notifications/{groupKey}/dismiss",
    summary: "Deletes every notification of one group",
    tags: ["notifications"],
    access: authenticated,
    scopes: WRITE,
    params: GroupParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.notifications.dismissGroup(signedInUser(caller).accountId, params.groupKey);
      return {};
    },
  }),
];

async function renderOne(services: KithServices, viewerId: string, record: NotificationRecord): Promise<NotificationEntity> {
  const [entity] = await services.notificationViews.render([record], viewerId);
  if (!entity) throw new KithError("notification.not_found");
  return entity;
}

/** The `Link` header of a page of groups: it pages by the notifications folded into it, the next page below the oldest. */
function groupPageLinks(url: URL, ids: readonly string[], limit: number, full: boolean): string | null {
  const newest = ids[0];
  const oldest = ids[ids.length - 1];
  if (newest === undefined || oldest === undefined) return null;
  const at = (changes: Record<string, string>): string => {
    const next = new URL(url);
    for (const key of ["max_id", "min_id", "since_id", "access_token"]) next.searchParams.delete(key);
    for (const [key, value] of Object.entries(changes)) next.searchParams.set(key, value);
    return next.toString();
  };
  const links = full ? [`<${at({ max_id: oldest, limit: String(limit) })}>; rel="next"`] : [];
  links.push(`<${at({ min_id: newest, limit: String(limit) })}>; rel="prev"`);
  return links.join(", ");
}
