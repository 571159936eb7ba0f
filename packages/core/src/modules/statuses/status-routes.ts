import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import type { PollInput } from "./poll-service.js";
import type { KithServices } from "../core-services.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { ContextJson, StatusEditJson, StatusJson, StatusSourceJson } from "../../mastodon/entities/status.js";
import { ScheduledStatusJson } from "../../mastodon/entities/scheduled-status.js";
import { TranslationJson } from "../../mastodon/entities/translation.js";
import { isKithError } from "../../domain/errors.js";
import type { StatusInput } from "./status-service.js";
import { ACCOUNTS_PAGE, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zBool, zInt, zList } from "../../platform/http/schemas.js";
import { actorOf, cursorPagedReply, renderStatus, viewerOf } from "./status-route-helpers.js";
import { QUOTE_POLICIES } from "./quote-policy.js";
import { quoteRoutes } from "./quote-routes.js";

/** Mastodon's statuses API: `/api/v1/statuses` and what hangs off a status, plus Kith's subscriptions and highlights. */

const READ = ["read:statuses"];
const WRITE = ["write:statuses"];
const VISIBILITIES = ["public", "unlisted", "private", "direct"] as const;

const StatusParams = z.object({ id: z.string().min(1).max(64) });

const PollBody = z.object({
  options: zList(z.string().max(1_000)),
  expires_in: zInt,
  multiple: zBool.optional(),
  hide_totals: zBool.optional(),
});

const CreateBody = z.object({
  status: z.string().max(100_000).optional(),
  media_ids: zList(z.string().max(64)).optional(),
  poll: PollBody.optional(),
  in_reply_to_id: z.string().max(64).nullish(),
  sensitive: zBool.optional(),
  spoiler_text: z.string().max(100_000).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  language: z.string().max(16).nullish(),
  scheduled_at: z.string().max(64).nullish(),
  /** Mastodon's: the accounts the text may mention; a mention of any other refuses the status (422, `unexpected_accounts`). */
  allowed_mentions: zList(z.string().max(64)).pipe(z.array(z.string()).max(100)).optional(),
  /** Mastodon 4.5's: the status this one quotes. */
  quoted_status_id: z.string().min(1).max(64).nullish(),
  /** Mastodon 4.5's: who may quote this status (private and direct ones: nobody). */
  quote_approval_policy: z.enum(QUOTE_POLICIES).optional(),
  /** Kith's addition: the group the status is posted in (a reply stays in its root's group). */
  group_id: z.string().min(1).max(64).nullish(),
  /** Kith's addition: the group's channel (else its primary channel; a reply stays in its parent's). */
  channel_id: z.string().min(1).max(64).nullish(),
});

const EditBody = z.object({
  status: z.string().max(100_000).optional(),
  spoiler_text: z.string().max(100_000).optional(),
  sensitive: zBool.optional(),
  language: z.string().max(16).nullish(),
  media_ids: zList(z.string().max(64)).optional(),
  poll: PollBody.optional(),
});

const ReblogBody = z.object({ visibility: z.enum(VISIBILITIES).optional() });

function pollInput(poll: z.infer<typeof PollBody> | undefined): PollInput | undefined {
  if (!poll) return undefined;
  return {
    options: poll.options,
    expiresIn: poll.expires_in,
    ...(poll.multiple !== undefined && { multiple: poll.multiple }),
    ...(poll.hide_totals !== undefined && { hideTotals: poll.hide_totals }),
  };
}

/** `scheduled_at` as a time; 422 when it is none. */
function scheduledTime(value: string): Date {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) {
    throw new KithError("status.invalid", { details: [{ field: "scheduled_at", message: "is not a date and time" }] });
  }
  return time;
}

/** The `allowed_mentions` refusal with Mastodon's `unexpected_accounts`, the Account entities of the mentions refused. */
async function withUnexpectedAccounts(services: KithServices, error: unknown): Promise<unknown> {
  if (!isKithError(error) || error.code !== "status.unexpected_mentions" || !error.details) return error;
  const ids = error.details.map((detail) => detail.message);
  const accounts = await services.accountViews.render(ids);
  return new KithError("status.unexpected_mentions", {
    details: error.details,
    fields: { unexpected_accounts: ids.flatMap((id) => accounts.get(id) ?? []) },
  });
}

type StatusAction = (services: KithServices, accountId: string, statusId: string) => Promise<string>;

/** A POST on a post that acts and answers with the post as the caller now sees it. */
function actionRoute(path: string, summary: string, scopes: readonly string[], act: StatusAction) {
  return route({
    method: "POST",
    path: `/api/v1/statuses/{id}/${path}`,
    summary,
    tags: ["statuses"],
    access: authenticated,
    scopes,
    params: StatusParams,
    response: StatusJson,
    handler: async ({ caller, params, services }) => {
      const accountId = actorOf(caller);
      const id = await act(services, accountId, params.id);
      return renderStatus(services, id, accountId);
    },
  });
}

export const statusRoutes = [
  route({
    method: "POST",
    path: "/api/v1/statuses",
    summary:
      "Posts a status: text with mentions, hashtags and links, media or a poll, a reply, a content warning; `Idempotency-Key` honoured",
    description:
      "`scheduled_at` (at least five minutes ahead) keeps the status to be posted then and answers with a ScheduledStatus, or 422 where no module schedules statuses; a time already past posts at once. " +
      "`quoted_status_id` quotes a status the caller may see: accepted at once when its policy allows, pending its server's answer for another server's status; " +
      "status.not_quotable (403) for a boost, a private or direct status, or one whose policy refuses the caller. `quote_approval_policy` (public, followers, nobody; default public) says who may quote the new status. " +
      "`allowed_mentions`: a text mentioning an account not listed is refused with status.unexpected_mentions (422) and Mastodon's `unexpected_accounts`. The same `Idempotency-Key` from the same account returns the post made the first time. " +
      "`group_id` (Kith's addition) posts in a group, members only, and `channel_id` in one of its channels (else in its primary channel); a reply goes to its parent's group and channel whether named or not, and a secret group's statuses are `direct` to its members. " +
      "Refusals: group.not_found (404, a secret group to a non-member too), group.banned (403), group.members_only_posting (403), group.reply_outside_group (422), group.mention_outside_secret_group (422), " +
      "group.channel_outside_group (422, a channel of another group), group.channel_needs_group (422, `channel_id` without `group_id` on a status replying to none), group.reply_outside_channel (422).",
    tags: ["statuses"],
    access: authenticated,
    scopes: WRITE,
    body: CreateBody,
    response: z.union([StatusJson, ScheduledStatusJson]),
    handler: async ({ caller, body, services, request }) => {
      const accountId = actorOf(caller);
      const key = request.headers.get("idempotency-key")?.trim().slice(0, 200);
      const poll = pollInput(body.poll);
      const input: StatusInput = {
        ...(body.status !== undefined && { text: body.status }),
        ...(body.media_ids && { mediaIds: body.media_ids }),
        ...(poll && { poll }),
        ...(body.in_reply_to_id && { inReplyToId: body.in_reply_to_id }),
        ...(body.sensitive !== undefined && { sensitive: body.sensitive }),
        ...(body.spoiler_text !== undefined && { spoilerText: body.spoiler_text }),
        ...(body.visibility && { visibility: body.visibility }),
        ...(body.language && { language: body.language }),
        ...(body.group_id && { groupId: body.group_id }),
        ...(body.channel_id && { channelId: body.channel_id }),
        ...(body.allowed_mentions && { allowedMentions: body.allowed_mentions }),
        ...(body.quoted_status_id && { quotedStatusId: body.quoted_status_id }),
        ...(body.quote_approval_policy && { quotePolicy: body.quote_approval_policy }),
        ...(caller.kind === "user" && { sessionId: caller.sessionId }),
      };
      const scheduledAt = body.scheduled_at ? scheduledTime(body.scheduled_at) : null;
      // A time already past posts at once, as Mastodon does; the scheduler refuses one too soon.
      if (scheduledAt && !services.statusScheduling.isPast(scheduledAt)) {
        return services.statusScheduling.schedule(accountId, { ...input, ...(key && { idempotencyKey: key }) }, scheduledAt);
      }
      try {
        const posted = await services.statuses.post(accountId, { ...input, ...(key && { idempotencyKey: key }) });
        const entity = await services.postedStatusView.render(posted);
        if (!entity) throw new KithError("status.not_found");
        return entity;
      } catch (error) {
        throw await withUnexpectedAccounts(services, error);
      }
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses",
    summary: "Several posts by id (`id[]`); those the caller may not see are left out",
    tags: ["statuses"],
    access: publicAccess,
    scopes: READ,
    query: z.object({ id: zList(z.string().max(64)).pipe(z.array(z.string()).max(40)).optional() }),
    response: z.array(StatusJson),
    handler: async ({ caller, query, services }) => services.statusViews.renderList(query.id ?? [], viewerOf(caller)),
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}",
    summary: "One post; 404 when the caller may not see it",
    tags: ["statuses"],
    access: publicAccess,
    scopes: READ,
    params: StatusParams,
    response: StatusJson,
    handler: async ({ caller, params, services }) => renderStatus(services, params.id, viewerOf(caller)),
  }),
  route({
    method: "PUT",
    path: "/api/v1/statuses/{id}",
    summary: "Edits one of the caller's posts: text, content warning, sensitivity, language, media, poll; every version is kept",
    tags: ["statuses"],
    access: authenticated,
    scopes: WRITE,
    params: StatusParams,
    body: EditBody,
    response: StatusJson,
    handler: async ({ caller, params, body, services }) => {
      const accountId = actorOf(caller);
      const poll = pollInput(body.poll);
      await services.statuses.edit(accountId, params.id, {
        ...(body.status !== undefined && { text: body.status }),
        ...(body.spoiler_text !== undefined && { spoilerText: body.spoiler_text }),
        ...(body.sensitive !== undefined && { sensitive: body.sensitive }),
        ...(body.language && { language: body.language }),
        ...(body.media_ids && { mediaIds: body.media_ids }),
        ...(poll && { poll }),
      });
      return renderStatus(services, params.id, accountId);
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/statuses/{id}",
    summary: "Deletes one of the caller's posts and answers with it, its source text included, for redrafting",
    tags: ["statuses"],
    access: authenticated,
    scopes: WRITE,
    params: StatusParams,
    response: StatusJson,
    handler: async ({ caller, params, services }) => {
      const accountId = actorOf(caller);
      // Rendered first: once deleted there is nothing left to answer with; the delete refuses others' statuses.
      const entity = await renderStatus(services, params.id, accountId, true);
      await services.statuses.delete(accountId, params.id);
      return entity;
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}/context",
    summary: "The thread around a post: ancestors, descendants, and the replies its root's author highlighted, as the caller may see them",
    tags: ["statuses"],
    access: publicAccess,
    scopes: READ,
    params: StatusParams,
    response: ContextJson,
    handler: async ({ caller, params, services }) => services.statusQueries.context(params.id, viewerOf(caller)),
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}/history",
    summary: "Every version of a post, oldest first",
    tags: ["statuses"],
    access: publicAccess,
    scopes: READ,
    params: StatusParams,
    response: z.array(StatusEditJson),
    handler: async ({ caller, params, services }) => services.statusQueries.history(params.id, viewerOf(caller)),
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}/source",
    summary: "The plain-text source of one of the caller's posts, for editing",
    tags: ["statuses"],
    access: authenticated,
    scopes: READ,
    params: StatusParams,
    response: StatusSourceJson,
    handler: async ({ caller, params, services }) => services.statusQueries.source(params.id, actorOf(caller)),
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}/reblogged_by",
    summary: "Accounts that boosted a post, newest first, paged with `Link`",
    tags: ["statuses"],
    access: publicAccess,
    scopes: READ,
    params: StatusParams,
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, params, query, services, url }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      const result = await services.statusQueries.rebloggedBy(params.id, viewerOf(caller), page);
      return cursorPagedReply(url, result.items, result.cursors, page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/statuses/{id}/favourited_by",
    summary: "Accounts that favourited a post, newest first, paged with `Link`",
    tags: ["statuses"],
    access: publicAccess,
    scopes: READ,
    params: StatusParams,
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, params, query, services, url }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      const result = await services.statusQueries.favouritedBy(params.id, viewerOf(caller), page);
      return cursorPagedReply(url, result.items, result.cursors, page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/statuses/{id}/translate",
    summary: "A public or unlisted post's texts translated into `lang` (else English); kept until the post is edited",
    description:
      "404 when the caller may not see the post, 403 (status.forbidden) for a private or direct post or one already in that language, " +
      "503 (translation.unavailable) on a server that does not translate.",
    tags: ["statuses"],
    access: authenticated,
    scopes: READ,
    params: StatusParams,
    body: z.object({ lang: z.string().trim().min(2).max(16).optional() }),
    response: TranslationJson,
    handler: async ({ caller, params, body, services }) =>
      services.statusTranslation.translate(params.id, actorOf(caller), body.lang ?? "en"),
  }),
  actionRoute("favourite", "Favourites a post", ["write:favourites"], (s, a, id) => s.statusInteractions.favourite(a, id)),
  actionRoute("unfavourite", "Undoes a favourite", ["write:favourites"], (s, a, id) => s.statusInteractions.unfavourite(a, id)),
  route({
    method: "POST",
    path: "/api/v1/statuses/{id}/reblog",
    summary: "Boosts a post (public or unlisted ones, and one's own followers-only posts); answers with the boost",
    tags: ["statuses"],
    access: authenticated,
    scopes: WRITE,
    params: StatusParams,
    body: ReblogBody,
    response: StatusJson,
    handler: async ({ caller, params, body, services }) => {
      const accountId = actorOf(caller);
      const id = await services.statuses.reblog(accountId, params.id, body.visibility);
      return renderStatus(services, id, accountId);
    },
  }),
  actionRoute("unreblog", "Undoes a boost; answers with the boosted post", WRITE, (s, a, id) => s.statuses.unreblog(a, id)),
  actionRoute("bookmark", "Bookmarks a post", ["write:bookmarks"], (s, a, id) => s.statusInteractions.bookmark(a, id)),
  actionRoute("unbookmark", "Removes a bookmark", ["write:bookmarks"], (s, a, id) => s.statusInteractions.unbookmark(a, id)),
  actionRoute("mute", "Mutes the post's conversation: no more notifications from it", ["write:mutes"], (s, a, id) =>
    s.statusInteractions.muteConversation(a, id),
  ),
  actionRoute("unmute", "Unmutes the post's conversation", ["write:mutes"], (s, a, id) => s.statusInteractions.unmuteConversation(a, id)),
  actionRoute(
    "pin",
    "Pins one of the caller's top-level posts to their profile; 422 beyond the server's maximum of pinned posts",
    ["write:accounts"],
    (s, a, id) => s.statusInteractions.pin(a, id),
  ),
  actionRoute("unpin", "Unpins a post from the caller's profile", ["write:accounts"], (s, a, id) => s.statusInteractions.unpin(a, id)),
  actionRoute("subscribe", "Subscribes the caller to new replies to a post (Kith)", WRITE, (s, a, id) =>
    s.statusInteractions.subscribe(a, id),
  ),
  actionRoute("unsubscribe", "Ends the caller's subscription to a post's replies (Kith)", WRITE, (s, a, id) =>
    s.statusInteractions.unsubscribe(a, id),
  ),
  actionRoute("highlight", "Highlights a reply under its thread's first post; only that post's author may (Kith)", WRITE, (s, a, id) =>
    s.statusInteractions.highlight(a, id),
  ),
  actionRoute("unhighlight", "Removes a reply's highlight (Kith)", WRITE, (s, a, id) => s.statusInteractions.unhighlight(a, id)),
  ...quoteRoutes,
];
