import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { ScheduledStatusJson } from "../../mastodon/entities/scheduled-status.js";
import { authenticated } from "../../platform/http/access.js";
import { POSTS_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { zDateTime } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import type { ScheduledStatusService } from "./scheduled-status-service.js";

const route = moduleRoute<ScheduledStatusService>();

/**
 * Mastodon's `/api/v1/scheduled_statuses`: the caller's statuses waiting to
 * be posted (made with `scheduled_at` on `POST /api/v1/statuses`); another
 * account's is not found.
 */
const TAGS = ["scheduled_statuses"];
const READ = ["read:statuses"];
const WRITE = ["write:statuses"];
const BASE = "/api/v1/scheduled_statuses";
const IdParams = z.object({ id: z.string().min(1).max(64) });

function actorOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

export const scheduledStatusRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "The caller's scheduled statuses, newest first, paged with `Link`",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    query: idPageQuery,
    response: z.array(ScheduledStatusJson),
    handler: async ({ caller, query, module, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      return pagedReply(url, await module.list(actorOf(caller), page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/{id}`,
    summary: "One of the caller's scheduled statuses",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    params: IdParams,
    response: ScheduledStatusJson,
    handler: async ({ caller, params, module }) => module.get(actorOf(caller), params.id),
  }),
  route({
    method: "PUT",
    path: `${BASE}/{id}`,
    summary: "Moves one of the caller's scheduled statuses to another time",
    description:
      "Only `scheduled_at` changes, under the rules of a new one: at least five minutes ahead (scheduled_status.too_soon, 422), " +
      "at most 25 on one day (scheduled_status.over_daily_limit, 422).",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: IdParams,
    body: z.object({ scheduled_at: zDateTime }),
    response: ScheduledStatusJson,
    handler: async ({ caller, params, body, module }) => module.reschedule(actorOf(caller), params.id, body.scheduled_at),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{id}`,
    summary: "Cancels one of the caller's scheduled statuses; its media stay the caller's, unattached",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: IdParams,
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.cancel(actorOf(caller), params.id);
      return {};
    },
  }),
];
