import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { type PageSize, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { zBool, zList } from "../../platform/http/schemas.js";
import { route } from "../core-route.js";
import { signedInUser } from "../timelines/routes.js";
import { MAX_BULK_REQUESTS, type NotificationPolicyValues } from "./notification-policy-service.js";
import { POLICY_VALUES } from "./notifications-store.js";

/**
 * Notification policies and requests (Mastodon 4.3): `GET`/`PATCH
 * /api/v2/notifications/policy` (and v1's `GET`/`PUT`, with its booleans:
 * true is `filter`, false `accept`), and the requests at
 * `/api/v1/notifications/requests`: one per account whose notifications the
 * policy filtered, named by that account's id; accepting one lets that
 * account's notifications through, those held and those to come; dismissing
 * it forgets the held ones. Declared before the notifications' own routes,
 * whose `{notificationId}` and `{groupKey}` would otherwise take `policy`
 * and `requests`.
 */

const READ = ["read:notifications"];
const WRITE = ["write:notifications"];
const TAGS = ["notifications"];
const REQUESTS_PAGE: PageSize = { defaultLimit: 40, maxLimit: 80 };

const Value = z.enum(POLICY_VALUES);
const Summary = z.object({ pending_requests_count: z.number().int(), pending_notifications_count: z.number().int() });

const PolicyJson = z.object({
  for_not_following: Value,
  for_not_followers: Value,
  for_new_accounts: Value,
  for_private_mentions: Value,
  for_limited_accounts: Value,
  summary: Summary,
});

const V1PolicyJson = z.object({
  filter_not_following: z.boolean(),
  filter_not_followers: z.boolean(),
  filter_new_accounts: z.boolean(),
  filter_private_mentions: z.boolean(),
  summary: Summary,
});

const PolicyBody = z.object({
  for_not_following: Value.optional(),
  for_not_followers: Value.optional(),
  for_new_accounts: Value.optional(),
  for_private_mentions: Value.optional(),
  for_limited_accounts: Value.optional(),
});

const V1PolicyBody = z.object({
  filter_not_following: zBool.optional(),
  filter_not_followers: zBool.optional(),
  filter_new_accounts: zBool.optional(),
  filter_private_mentions: zBool.optional(),
});

const RequestJson = z.object({
  id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  account: AccountJson,
  notifications_count: z.string(),
  last_status: StatusJson.optional(),
});

const RequestParams = z.object({ requestId: z.string().max(64) });
const BulkBody = z.object({ id: zList(z.string().max(64)).pipe(z.array(z.string()).min(1).max(MAX_BULK_REQUESTS)) });

type V1Policy = z.infer<typeof V1PolicyJson>;

function v1Of(policy: NotificationPolicyValues & { summary: z.infer<typeof Summary> }): V1Policy {
  return {
    filter_not_following: policy.for_not_following !== "accept",
    filter_not_followers: policy.for_not_followers !== "accept",
    filter_new_accounts: policy.for_new_accounts !== "accept",
    filter_private_mentions: policy.for_private_mentions !== "accept",
    summary: policy.summary,
  };
}

const fromV1 = (value: boolean | undefined) => (value === undefined ? undefined : value ? ("filter" as const) : ("accept" as const));

export const notificationPolicyRoutes = [
  route({
    method: "GET",
    path: "/api/v2/notifications/policy",
    summary: "The caller's notification policy, with how many requests and notifications it holds",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    response: PolicyJson,
    handler: ({ caller, services }) => services.notificationPolicy.policy(signedInUser(caller).accountId),
  }),
  // PATCH as Mastodon documents it; PUT as some clients (masto.js) send it.
  ...(["PATCH", "PUT"] as const).map((method) =>
    route({
      method,
      path: "/api/v2/notifications/policy",
      summary: "Changes the caller's notification policy (each of accept, filter, drop); values not given stay",
      tags: TAGS,
      access: authenticated,
      scopes: WRITE,
      body: PolicyBody,
      response: PolicyJson,
      handler: ({ caller, body, services }) => services.notificationPolicy.changePolicy(signedInUser(caller).accountId, body),
    }),
  ),
  route({
    method: "GET",
    path: "/api/v1/notifications/policy",
    summary: "The caller's notification policy in v1's shape (true: filtered)",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    response: V1PolicyJson,
    handler: async ({ caller, services }) => v1Of(await services.notificationPolicy.policy(signedInUser(caller).accountId)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/notifications/policy",
    summary: "Changes the caller's notification policy in v1's shape (true: filter, false: accept)",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: V1PolicyBody,
    response: V1PolicyJson,
    handler: async ({ caller, body, services }) =>
      v1Of(
        await services.notificationPolicy.changePolicy(signedInUser(caller).accountId, {
          for_not_following: fromV1(body.filter_not_following),
          for_not_followers: fromV1(body.filter_not_followers),
          for_new_accounts: fromV1(body.filter_new_accounts),
          for_private_mentions: fromV1(body.filter_private_mentions),
        }),
      ),
  }),
  route({
    method: "GET",
    path: "/api/v1/notifications/requests",
    summary: "The caller's notification requests, the most recently added to first",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    query: idPageQuery,
    response: z.array(RequestJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, REQUESTS_PAGE);
      const result = await services.notificationPolicy.requests(signedInUser(caller).accountId, {
        limit: page.limit,
        maxId: page.maxId,
        sinceId: page.sinceId ?? page.minId,
      });
      const link = idPageLinks(url, result.pageIds, page.limit);
      return Reply.json(result.requests, link ? { headers: { link } } : {});
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/notifications/requests/merged",
    summary: "Whether accepted requests' notifications are in the list yet: always, as accepting moves them at once",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    response: z.object({ merged: z.boolean() }),
    handler: async ({ caller }) => {
      signedInUser(caller);
      return { merged: true };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/requests/accept",
    summary: "Accepts several notification requests (id[]); those not there are passed over",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: BulkBody,
    response: z.object({}),
    handler: async ({ caller, body, services }) => {
      await services.notificationPolicy.acceptMany(signedInUser(caller).accountId, body.id);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/requests/dismiss",
    summary: "Dismisses several notification requests (id[]); those not there are passed over",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: BulkBody,
    response: z.object({}),
    handler: async ({ caller, body, services }) => {
      await services.notificationPolicy.dismissMany(signedInUser(caller).accountId, body.id);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/notifications/requests/{requestId}",
    summary: "One notification request of the caller",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    params: RequestParams,
    response: RequestJson,
    handler: ({ caller, params, services }) => services.notificationPolicy.request(signedInUser(caller).accountId, params.requestId),
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/requests/{requestId}/accept",
    summary: "Accepts a notification request: its account's notifications come through, those held and those to come",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: RequestParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.notificationPolicy.accept(signedInUser(caller).accountId, params.requestId);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/notifications/requests/{requestId}/dismiss",
    summary: "Dismisses a notification request: its held notifications are forgotten",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: RequestParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.notificationPolicy.dismiss(signedInUser(caller).accountId, params.requestId);
      return {};
    },
  }),
];
