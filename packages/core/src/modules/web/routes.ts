import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission, publicAccess } from "../../platform/http/access.js";
import type { PageRequest } from "../../domain/page.js";
import { Reply } from "../../platform/http/reply.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import { moduleRoute } from "../module.js";
import { profilePath, statusPath } from "./entry-html.js";
import { type FeedSource, atomFeed, rssFeed } from "./feeds.js";
import { wantsActivityJson } from "./negotiation.js";
import { oEmbedOf } from "./oembed.js";
import { PAGE_HEADERS, type SiteInfo } from "./page-layout.js";
import { PAGE_POSTS } from "./public-pages.js";
import { aboutView, notFoundView, profileView, tagView, threadView } from "./public-page-views.js";
import { robotsTxt } from "./robots.js";
import type { WebServices } from "./web-services.js";
import { accountRoutes } from "./account-routes.js";

const route = moduleRoute<WebServices>();

const HTML = "text/html; charset=utf-8";
const PageString = z.string();
const Acct = z.object({ acct: z.string().min(1).max(320) });
const AcctStatus = Acct.extend({ statusId: z.string().min(1).max(64) });
const TagName = z.object({ name: z.string().trim().min(1).max(256) });
const OlderQuery = z.object({ max_id: z.string().max(64).optional() });

function page(body: string, status = 200): Reply {
  return Reply.text(body, HTML, { status, headers: { ...PAGE_HEADERS } });
}

async function siteOf(module: WebServices, origin: string): Promise<SiteInfo> {
  return { name: await module.pages.siteName(), origin };
}

async function notFound(module: WebServices, origin: string, url: URL): Promise<Reply> {
  return page(notFoundView(await siteOf(module, origin), `${origin}${url.pathname}`), 404);
}

function older(query: { max_id?: string | undefined }): PageRequest {
  return { limit: PAGE_POSTS, ...(query.max_id && { maxId: query.max_id }) };
}

/** To the ActivityPub document, which the federation (Fedify) serves at the canonical id, for the signature and visibility rules it applies. */
function activityRedirect(location: string): Reply {
  return Reply.empty(302, { location, vary: "Accept" });
}

const FEED_TYPES = {
  rss: { contentType: "application/rss+xml; charset=utf-8", render: rssFeed },
  atom: { contentType: "application/atom+xml; charset=utf-8", render: atomFeed },
} as const;

function feedReply(kind: keyof typeof FEED_TYPES, source: FeedSource, statuses: readonly StatusEntity[], origin: string): Reply {
  const { contentType, render } = FEED_TYPES[kind];
  return Reply.text(
    render(source, statuses, (status) => `${origin}${statusPath(status)}`),
    contentType,
    {
      headers: { "x-content-type-options": "nosniff" },
    },
  );
}

const feedRoutes = (["rss", "atom"] as const).flatMap((kind) => [
  // Declared before `/@{acct}`, which would otherwise take `bob.rss` for an acct.
  route({
    method: "GET",
    path: `/@{acct}.${kind}`,
    summary: `A local account's public posts as ${kind === "rss" ? "RSS 2.0" : "Atom"}`,
    tags: ["web"],
    access: publicAccess,
    params: Acct,
    produces: FEED_TYPES[kind].contentType,
    response: PageString,
    handler: async ({ params, module, config, url }) => {
      const feed = await module.pages.feedOf(params.acct);
      if (!feed) return notFound(module, config.origin, url);
      const name = feed.account.display_name || feed.account.username;
      const pagePath = `${config.origin}${profilePath(feed.account)}`;
      const source = {
        title: name,
        description: `Public posts from @${feed.account.acct}@${new URL(config.origin).host}`,
        page: pagePath,
        self: `${pagePath}.${kind}`,
        image: feed.account.avatar_static,
      };
      return feedReply(kind, source, feed.statuses, config.origin);
    },
  }),
  route({
    method: "GET",
    path: `/tags/{name}.${kind}`,
    summary: `Public posts with a hashtag as ${kind === "rss" ? "RSS 2.0" : "Atom"}`,
    tags: ["web"],
    access: publicAccess,
    params: TagName,
    produces: FEED_TYPES[kind].contentType,
    response: PageString,
    handler: async ({ params, module, config }) => {
      const tag = await module.pages.tag(params.name, { limit: PAGE_POSTS });
      const pagePath = `${config.origin}/tags/${encodeURIComponent(params.name)}`;
      const source = {
        title: `#${params.name}`,
        description: `Public posts tagged #${params.name}`,
        page: pagePath,
        self: `${pagePath}.${kind}`,
      };
      return feedReply(kind, source, tag.statuses, config.origin);
    },
  }),
]);

/**
 * The public pages (issue 51): the server's landing and about page, profiles,
 * posts with their threads, hashtags, with their feeds, oEmbed and
 * robots.txt; and the development mail outbox for administrators.
 */
export const webRoutes = [
  ...feedRoutes,
  ...accountRoutes,
  ...(["/", "/about"] as const).map((path) =>
    route({
      method: "GET",
      path,
      summary: "The server's landing and about page: its name, description, rules, contact and whether one may sign up",
      tags: ["web"],
      access: publicAccess,
      produces: HTML,
      response: PageString,
      handler: async ({ module, config }) => page(aboutView(await siteOf(module, config.origin), await module.pages.about())),
    }),
  ),
  route({
    method: "GET",
    path: "/@{acct}",
    summary: "A profile page (`/@user`, or `/@user@domain` for a remote account); ActivityPub clients are sent to the actor",
    description:
      "HTML for browsers and link previews (OpenGraph, h-card), what a guest may see through the API; with an Accept of application/activity+json or application/ld+json, a redirect to the actor's id.",
    tags: ["web"],
    access: publicAccess,
    params: Acct,
    query: OlderQuery,
    produces: HTML,
    response: PageString,
    handler: async ({ params, query, module, config, request, url }) => {
      if (wantsActivityJson(request)) {
        const account = await module.pages.account(params.acct);
        return account ? activityRedirect(account.uri) : notFound(module, config.origin, url);
      }
      const profile = await module.pages.profile(params.acct, older(query));
      if (!profile) return notFound(module, config.origin, url);
      return page(profileView(await siteOf(module, config.origin), profile));
    },
  }),
  route({
    method: "GET",
    path: "/@{acct}/{statusId}",
    summary: "A post with its thread, as a guest may see them; ActivityPub clients are sent to the object",
    description:
      "HTML with OpenGraph, h-entry and the oEmbed link; with an ActivityPub Accept, a redirect to the status's id, where a signed fetch may see what a guest may not.",
    tags: ["web"],
    access: publicAccess,
    params: AcctStatus,
    produces: HTML,
    response: PageString,
    handler: async ({ params, module, config, request, url }) => {
      if (wantsActivityJson(request)) {
        const account = await module.pages.account(params.acct);
        if (account && !account.acct.includes("@"))
          return activityRedirect(`${account.uri}/statuses/${encodeURIComponent(params.statusId)}`);
        const status = account ? await module.pages.status(params.acct, params.statusId) : null;
        return status ? activityRedirect(status.uri) : notFound(module, config.origin, url);
      }
      const thread = await module.pages.thread(params.acct, params.statusId);
      if (!thread) return notFound(module, config.origin, url);
      return page(threadView(await siteOf(module, config.origin), thread));
    },
  }),
  route({
    method: "GET",
    path: "/tags/{name}",
    summary: "The public posts with a hashtag, as the tag timeline shows them to a guest",
    tags: ["web"],
    access: publicAccess,
    params: TagName,
    query: OlderQuery,
    produces: HTML,
    response: PageString,
    handler: async ({ params, query, module, config }) =>
      page(tagView(await siteOf(module, config.origin), await module.pages.tag(params.name, older(query)))),
  }),
  route({
    method: "GET",
    path: "/api/oembed",
    summary: "oEmbed of a public post page (`url`), JSON only",
    tags: ["web"],
    access: publicAccess,
    query: z.object({
      url: z.string().min(1).max(2_048),
      format: z.enum(["json"]).optional(),
      maxwidth: z.coerce.number().int().min(1).max(10_000).optional(),
      maxheight: z.coerce.number().int().min(1).max(10_000).optional(),
    }),
    response: z.object({
      type: z.literal("rich"),
      version: z.literal("1.0"),
      title: z.string(),
      author_name: z.string(),
      author_url: z.string(),
      provider_name: z.string(),
      provider_url: z.string(),
      cache_age: z.number(),
      html: z.string(),
      width: z.number(),
      height: z.null(),
    }),
    handler: async ({ query, module, config }) => {
      const embed = await oEmbedOf(module.pages, query.url, config.origin, await module.pages.siteName(), query.maxwidth);
      if (!embed) return Reply.json({ error: "Record not found" }, { status: 404 });
      return embed;
    },
  }),
  route({
    method: "GET",
    path: "/robots.txt",
    summary: "What crawlers may read: not the API, nor the pages of accounts that chose not to be indexed",
    tags: ["web"],
    access: publicAccess,
    produces: "text/plain; charset=utf-8",
    response: PageString,
    handler: async ({ module }) => Reply.text(robotsTxt(await module.pages.unindexedUsernames()), "text/plain; charset=utf-8"),
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/mail_outbox",
    summary: "The mail a server without SMTP kept in memory, newest first, with the links of each (development and trials)",
    description:
      "`kept` is false when mail goes out through SMTP or another mailer, which keeps nothing here. `to` keeps the messages to one address. The messages hold confirmation and password-reset links, hence AdminSettings.Manage.",
    tags: ["admin"],
    access: permission(any("AdminSettings.Manage")),
    scopes: ["admin:read"],
    query: z.object({ limit: z.coerce.number().int().min(1).max(200).optional(), to: z.string().max(320).optional() }),
    response: z.object({
      kept: z.boolean(),
      messages: z.array(
        z.object({ index: z.number().int(), to: z.string(), subject: z.string(), text: z.string(), links: z.array(z.string()) }),
      ),
    }),
    handler: ({ query, module }) => module.outbox.list(query.limit ?? 40, query.to),
  }),
];
