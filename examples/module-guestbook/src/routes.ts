import { KithError, POSTS_PAGE, authenticated, idPageQuery, moduleRoute, pageRequest, pagedReply, publicAccess } from "@kith/core";
import { z } from "zod";
import type { GuestbookService } from "./guestbook-service.js";

const route = moduleRoute<GuestbookService>();

const AccountParams = z.object({ id: z.string().min(1).max(64) });
const EntryParams = z.object({ entryId: z.string().min(1).max(64) });

/** The guestbook's endpoints; the route handlers get the module's service as `module`. */
export const guestbookRoutes = [
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/guestbook",
    summary: "The entries of a local account's guestbook, newest first",
    tags: ["guestbook"],
    access: publicAccess,
    params: AccountParams,
    query: idPageQuery,
    handler: async ({ params, query, module, url }) => {
      const page = pageRequest(query, POSTS_PAGE);
      return pagedReply(url, await module.list(params.id, page), page.limit);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/accounts/{id}/guestbook",
    summary: "Signs a local account's guestbook",
    tags: ["guestbook"],
    access: authenticated,
    scopes: ["write:statuses"],
    params: AccountParams,
    body: z.object({ text: z.string().trim().min(1).max(500) }),
    handler: async ({ caller, params, body, module }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      return module.sign(caller.accountId, params.id, body.text);
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/guestbook/{entryId}",
    summary: "Deletes a guestbook entry (its author or the guestbook's owner)",
    tags: ["guestbook"],
    access: authenticated,
    scopes: ["write:statuses"],
    params: EntryParams,
    handler: async ({ caller, params, module }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      await module.remove(caller.accountId, params.entryId);
      return {};
    },
  }),
];
