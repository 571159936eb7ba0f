import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { zBool } from "../../platform/http/schemas.js";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { moduleRoute } from "../module.js";
import { PUSH_ALERTS, type PushAlerts, type PushService, WebPushSubscriptionJson } from "./push-service.js";
import { PUSH_POLICIES } from "./push-store.js";

const route = moduleRoute<PushService>();

/**
 * Mastodon's Web Push subscription at `/api/v1/push/subscription`: one per
 * access token, the token's `push` scope required. `data[alerts][<type>]`
 * turns the push of a notification type on or off; `policy` (or
 * `data[policy]`) says from whom: `all`, `followed` (accounts the user
 * follows), `follower` (accounts that follow the user) or `none`.
 */
const TAGS = ["push"];
const SCOPES = ["push"];
const PATH = "/api/v1/push/subscription";

const Policy = z.enum(PUSH_POLICIES);
const Alerts = z.object(
  Object.fromEntries(PUSH_ALERTS.map((alert) => [alert, zBool.optional()])) as Record<
    (typeof PUSH_ALERTS)[number],
    z.ZodOptional<typeof zBool>
  >,
);
const Data = z.object({ alerts: Alerts.optional(), policy: Policy.optional() });

const SubscribeBody = z.object({
  subscription: z.object({
    endpoint: z.string().trim().min(1).max(2_048),
    keys: z.object({ p256dh: z.string().trim().min(1).max(256), auth: z.string().trim().min(1).max(64) }),
    standard: zBool.optional(),
  }),
  data: Data.optional(),
  policy: Policy.optional(),
});
const ChangeBody = z.object({ data: Data.optional(), policy: Policy.optional() });

function alertsGiven(data: z.infer<typeof Data> | undefined): Partial<PushAlerts> {
  const alerts: Partial<PushAlerts> = {};
  for (const [alert, on] of Object.entries(data?.alerts ?? {})) if (on !== undefined) alerts[alert as keyof PushAlerts] = on;
  return alerts;
}

function signedInUser(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

/** The token the request came with: the push message carries it, for the client to fetch the notification. */
function tokenOf(request: Request, url: URL): string {
  const header = request.headers.get("authorization") ?? "";
  const bearer = /^Bearer\s+(\S+)$/i.exec(header)?.[1];
  const token = bearer ?? url.searchParams.get("access_token");
  if (!token) throw new KithError("auth.unauthenticated");
  return token;
}

export const pushRoutes = [
  route({
    method: "POST",
    path: PATH,
    summary: "Subscribes the access token to Web Push, replacing its subscription",
    tags: TAGS,
    access: authenticated,
    scopes: SCOPES,
    body: SubscribeBody,
    response: WebPushSubscriptionJson,
    handler: async ({ caller, body, module, request, url }) => {
      const user = signedInUser(caller);
      return module.subscribe({
        accountId: user.accountId,
        sessionId: user.sessionId,
        accessToken: tokenOf(request, url),
        endpoint: body.subscription.endpoint,
        p256dh: body.subscription.keys.p256dh,
        auth: body.subscription.keys.auth,
        alerts: alertsGiven(body.data),
        policy: body.policy ?? body.data?.policy,
      });
    },
  }),
  route({
    method: "GET",
    path: PATH,
    summary: "The access token's Web Push subscription",
    tags: TAGS,
    access: authenticated,
    scopes: SCOPES,
    response: WebPushSubscriptionJson,
    handler: ({ caller, module }) => module.get(signedInUser(caller).sessionId),
  }),
  route({
    method: "PUT",
    path: PATH,
    summary: "Changes the alerts and policy of the access token's Web Push subscription",
    tags: TAGS,
    access: authenticated,
    scopes: SCOPES,
    body: ChangeBody,
    response: WebPushSubscriptionJson,
    handler: ({ caller, body, module }) =>
      module.change(signedInUser(caller).sessionId, { alerts: alertsGiven(body.data), policy: body.policy ?? body.data?.policy }),
  }),
  route({
    method: "DELETE",
    path: PATH,
    summary: "Removes the access token's Web Push subscription",
    tags: TAGS,
    access: authenticated,
    scopes: SCOPES,
    response: z.object({}),
    handler: async ({ caller, module }) => {
      await module.unsubscribe(signedInUser(caller).sessionId);
      return {};
    },
  }),
];
