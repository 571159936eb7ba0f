import { z } from "zod";
import { moduleRoute } from "../module.js";
import type { TrendsService } from "./trends-service.js";
import { publicAccess } from "../../platform/http/access.js";
import { FullTagJson } from "../../mastodon/entities/tag.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { PreviewCardJson } from "../../mastodon/entities/preview-card.js";
import { clampLimit } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { zInt } from "../../platform/http/schemas.js";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { KithError } from "../../domain/errors.js";
import type { Caller } from "../../domain/caller.js";

const route = moduleRoute<TrendsService>();

/** Trends of this server's recent activity; Mastodon pages them by `offset`, with `Link` headers to the next page. */

const TrendQuery = z.object({ limit: zInt.optional(), offset: zInt.pipe(z.number().int().min(0)).optional() });
const TAGS_PAGE = { defaultLimit: 10, maxLimit: 20 };
const STATUSES_PAGE = { defaultLimit: 20, maxLimit: 40 };
const LINKS_PAGE = { defaultLimit: 10, maxLimit: 20 };

/** Mastodon's TrendsLink entity: a preview card with a week of daily history (today first). */
const TrendsLinkJson = PreviewCardJson.extend({
  history: z.array(z.object({ day: z.string(), uses: z.string(), accounts: z.string() })),
});
const AdminTrendsLinkJson = TrendsLinkJson.extend({ id: z.string(), requires_review: z.boolean() });

function offsetReply(url: URL, items: readonly unknown[], limit: number, offset: number): Reply {
  if (items.length < limit) return Reply.json(items);
  const next = new URL(url);
  next.searchParams.set("offset", String(offset + items.length));
  next.searchParams.set("limit", String(limit));
  next.searchParams.delete("access_token");
  return Reply.json(items, { headers: { link: `<${next}>; rel="next"` } });
}

function tagsRoute(path: string, summary: string) {
  return route({
    method: "GET",
    path,
    summary,
    tags: ["trends"],
    access: publicAccess,
    query: TrendQuery,
    response: z.array(FullTagJson),
    handler: async ({ caller, query, module, url }) => {
      const limit = clampLimit(query.limit, TAGS_PAGE);
      const offset = query.offset ?? 0;
      const tags = await module.trendingTags(caller.kind === "user" ? caller.accountId : null, { limit, offset });
      return offsetReply(url, tags, limit, offset);
    },
  });
}

/**
 * Mastodon's review of trends at `/api/v1/admin/trends/...` (Mastodon asks
 * `manage_taxonomies`): moderators see every candidate and approve or
 * reject it; a rejected one leaves the public trends. Reads need
 * Reports.Read or AdminSettings.Read (or their Manage), reviews
 * Reports.Manage or AdminSettings.Manage.
 */
const reviewRead = permission(any("Reports.Read", "Reports.Manage", "AdminSettings.Read", "AdminSettings.Manage"));
const reviewManage = permission(any("Reports.Manage", "AdminSettings.Manage"));
const ADMIN_TAGS = ["admin/trends"];
const ADMIN = "/api/v1/admin/trends";
const IdParams = z.object({ id: z.string().min(1).max(64) });
const AdminTagJson = FullTagJson.extend({
  trendable: z.boolean(),
  usable: z.boolean(),
  listable: z.boolean(),
  requires_review: z.boolean(),
});
const AdminStatusJson = StatusJson.and(z.object({ requires_review: z.boolean() }));

function reviewerOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

const REVIEWED: Record<"tags" | "statuses" | "links", string> = { tags: "hashtag", statuses: "status", links: "link (by its card's id)" };

function reviewRoutes(kind: "tags" | "statuses" | "links") {
  return (["approve", "reject"] as const).map((decision) =>
    route({
      method: "POST",
      path: `${ADMIN}/${kind}/{id}/${decision}`,
      summary:
        decision === "approve"
          ? `Approves a ${REVIEWED[kind]} for the public trends`
          : `Rejects a ${REVIEWED[kind]}: it leaves the public trends`,
      tags: ADMIN_TAGS,
      access: reviewManage,
      scopes: ["admin:write"],
      params: IdParams,
      response: kind === "tags" ? AdminTagJson : kind === "links" ? AdminTrendsLinkJson : AdminStatusJson,
      handler: async ({ module, params, caller }) => {
        const state = decision === "approve" ? "approved" : "rejected";
        const reviewer = reviewerOf(caller);
        if (kind === "tags") return module.reviewTag(params.id, state, reviewer);
        if (kind === "links") return module.reviewLink(params.id, state, reviewer);
        return module.reviewStatus(params.id, state, reviewer);
      },
    }),
  );
}

function noLinks(path: string, summary: string) {
  return route({
    method: "GET",
    path,
    summary,
    tags: ADMIN_TAGS,
    access: reviewRead,
    scopes: ["admin:read"],
    query: TrendQuery,
    response: z.array(z.object({})),
    handler: () => [],
  });
}

function noLinkReview(path: string, summary: string) {
  return route({
    method: "POST",
    path,
    summary,
    tags: ADMIN_TAGS,
    access: reviewManage,
    scopes: ["admin:write"],
    params: IdParams,
    response: z.object({}),
    handler: () => {
      throw new KithError("request.not_found", { message: "Record not found" });
    },
  });
}

const adminTrendRoutes = [
  route({
    method: "GET",
    path: `${ADMIN}/tags`,
    summary: "Trending hashtags as moderators review them: every candidate, as Admin::Tag with `requires_review`",
    tags: ADMIN_TAGS,
    access: reviewRead,
    scopes: ["admin:read"],
    query: TrendQuery,
    response: z.array(AdminTagJson),
    handler: async ({ module, query, url }) => {
      const limit = clampLimit(query.limit, TAGS_PAGE);
      const offset = query.offset ?? 0;
      return offsetReply(url, await module.reviewTags({ limit, offset }), limit, offset);
    },
  }),
  route({
    method: "GET",
    path: `${ADMIN}/statuses`,
    summary: "Trending statuses as moderators review them: every candidate, with `requires_review`",
    tags: ADMIN_TAGS,
    access: reviewRead,
    scopes: ["admin:read"],
    query: TrendQuery,
    response: z.array(AdminStatusJson),
    handler: async ({ module, query, url, caller }) => {
      const limit = clampLimit(query.limit, STATUSES_PAGE);
      const offset = query.offset ?? 0;
      const reviewer = reviewerOf(caller);
      return offsetReply(url, await module.reviewStatuses(reviewer, { limit, offset }), limit, offset);
    },
  }),
  route({
    method: "GET",
    path: `${ADMIN}/links`,
    summary: "Trending links as moderators review them: every candidate card, with its id and `requires_review`",
    tags: ADMIN_TAGS,
    access: reviewRead,
    scopes: ["admin:read"],
    query: TrendQuery,
    response: z.array(AdminTrendsLinkJson),
    handler: async ({ module, query, url }) => {
      const limit = clampLimit(query.limit, LINKS_PAGE);
      const offset = query.offset ?? 0;
      return offsetReply(url, await module.reviewLinks({ limit, offset }), limit, offset);
    },
  }),
  noLinks(`${ADMIN}/links/publishers`, "Publishers of trending links to review: always empty, since links are reviewed one by one here"),
  ...reviewRoutes("tags"),
  ...reviewRoutes("statuses"),
  ...reviewRoutes("links"),
  noLinkReview(`${ADMIN}/links/publishers/{id}/approve`, "Approves a link publisher: 404, since links are reviewed one by one here"),
  noLinkReview(`${ADMIN}/links/publishers/{id}/reject`, "Rejects a link publisher: 404, since links are reviewed one by one here"),
];

export const trendRoutes = [
  ...adminTrendRoutes,
  tagsRoute("/api/v1/trends", "Trending hashtags (the older path of /api/v1/trends/tags)"),
  tagsRoute("/api/v1/trends/tags", "Hashtags used by the most accounts in public posts lately, with a week of daily history"),
  route({
    method: "GET",
    path: "/api/v1/trends/statuses",
    summary: "Public posts with the most favourites and boosts lately, from accounts that opted into discovery",
    tags: ["trends"],
    access: publicAccess,
    query: TrendQuery,
    response: z.array(StatusJson),
    handler: async ({ caller, query, module, url }) => {
      const limit = clampLimit(query.limit, STATUSES_PAGE);
      const offset = query.offset ?? 0;
      const statuses = await module.trendingStatuses(caller.kind === "user" ? caller.accountId : null, { limit, offset });
      return offsetReply(url, statuses, limit, offset);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/trends/links",
    summary: "Links shared by the most accounts in public posts lately (their preview cards), with a week of daily history",
    tags: ["trends"],
    access: publicAccess,
    query: TrendQuery,
    response: z.array(TrendsLinkJson),
    handler: async ({ module, query, url }) => {
      const limit = clampLimit(query.limit, LINKS_PAGE);
      const offset = query.offset ?? 0;
      return offsetReply(url, await module.trendingLinks({ limit, offset }), limit, offset);
    },
  }),
];
