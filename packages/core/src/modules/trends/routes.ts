import { z } from "zod";
import { moduleRoute } from "../module.js";
import type { TrendsService } from "./trends-service.js";
import { publicAccess } from "../../platform/http/access.js";
import { FullTagJson } from "../../mastodon/entities/tag.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { clampLimit } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { zInt } from "../../platform/http/schemas.js";

const route = moduleRoute<TrendsService>();

/** Trends of this server's recent activity; Mastodon pages them by `offset`, with `Link` headers to the next page. */

const TrendQuery = z.object({ limit: zInt.optional(), offset: zInt.pipe(z.number().int().min(0)).optional() });
const TAGS_PAGE = { defaultLimit: 10, maxLimit: 20 };
const STATUSES_PAGE = { defaultLimit: 20, maxLimit: 40 };

/** Mastodon's TrendsLink entity (a preview card with history); listed for the schema, none are produced yet. */
const TrendsLinkJson = z.object({
  url: z.string(),
  title: z.string(),
  description: z.string(),
  type: z.enum(["link", "photo", "video", "rich"]),
  history: z.array(z.object({ day: z.string(), uses: z.string(), accounts: z.string() })),
});

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

export const trendRoutes = [
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
    summary: "Trending links: always empty for now, since links get no preview cards yet",
    tags: ["trends"],
    access: publicAccess,
    query: TrendQuery,
    response: z.array(TrendsLinkJson),
    handler: () => [],
  }),
];
