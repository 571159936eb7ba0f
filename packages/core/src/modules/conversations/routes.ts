import { z } from "zod";
import { authenticated } from "../../platform/http/access.js";
import { ConversationJson } from "../../mastodon/entities/conversation.js";
import { POSTS_PAGE, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { signedInUser } from "../timelines/routes.js";

/** Direct conversations (Mastodon's): direct threads, paged by their last status. */

const ConversationParams = z.object({ conversationId: z.string().max(64) });

export const conversationRoutes = [
  route({
    method: "GET",
    path: "/api/v1/conversations",
    summary: "The caller's direct conversations, most recently active first",
    tags: ["conversations"],
    access: authenticated,
    scopes: ["read:statuses"],
    query: idPageQuery,
    response: z.array(ConversationJson),
    handler: async ({ caller, query, services, url }) => {
      const user = signedInUser(caller);
      const page = pageRequest(query, POSTS_PAGE);
      const records = await services.conversations.list(user.accountId, page);
      const entities = await services.conversationViews.render(records, user.accountId);
      // Paged by the last status's id, as Mastodon does.
      const link = idPageLinks(
        url,
        records.map((r) => r.lastStatusId ?? ""),
        page.limit,
      );
      return Reply.json(entities, link ? { headers: { link } } : {});
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/conversations/{conversationId}",
    summary: "Removes a conversation from the caller's list (its posts stay)",
    tags: ["conversations"],
    access: authenticated,
    scopes: ["write:conversations"],
    params: ConversationParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.conversations.remove(signedInUser(caller).accountId, params.conversationId);
      return {};
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/conversations/{conversationId}/read",
    summary: "Marks a conversation read",
    tags: ["conversations"],
    access: authenticated,
    scopes: ["write:conversations"],
    params: ConversationParams,
    response: ConversationJson,
    handler: async ({ caller, params, services }) => {
      const user = signedInUser(caller);
      const record = await services.conversations.markRead(user.accountId, params.conversationId);
      const [entity] = await services.conversationViews.render([record], user.accountId);
      return entity;
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/conversations/{conversationId}/unread",
    summary: "Marks a conversation unread",
    tags: ["conversations"],
    access: authenticated,
    scopes: ["write:conversations"],
    params: ConversationParams,
    response: ConversationJson,
    handler: async ({ caller, params, services }) => {
      const user = signedInUser(caller);
      const record = await services.conversations.markUnread(user.accountId, params.conversationId);
      const [entity] = await services.conversationViews.render([record], user.accountId);
      return entity;
    },
  }),
];
