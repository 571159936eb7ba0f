import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { RelationshipJson } from "../../mastodon/entities/relationship.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { ACCOUNTS_PAGE, idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import type { KithServices } from "../core-services.js";
import { moduleRoute } from "../module.js";
import type { EndorsementService } from "./endorsement-service.js";
import type { EndorsementEntry } from "./endorsements-store.js";

const route = moduleRoute<EndorsementService>();

const AccountParams = z.object({ id: z.string().min(1).max(64) });

/** Mastodon lists endorsements 40 at a time unless asked otherwise. */
const ENDORSEMENTS_PAGE = { defaultLimit: 40, maxLimit: ACCOUNTS_PAGE.maxLimit };

function userIdOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

/** The endorsed accounts in the page's order, paged by the endorsements' ids with `Link`. */
async function endorsedPageReply(services: KithServices, url: URL, entries: readonly EndorsementEntry[], limit: number): Promise<Reply> {
  const rendered = await services.accountViews.render(entries.map((entry) => entry.accountId));
  const body = entries.flatMap((entry) => {
    const account = rendered.get(entry.accountId);
    return account ? [account] : [];
  });
  const link = idPageLinks(
    url,
    entries.map((entry) => entry.id),
    limit,
  );
  return Reply.json(body, link ? { headers: { link } } : {});
}

/** A route that features (`endorse`, or its older name `pin`) or stops featuring an account, answering the relationship. */
function endorsementRoute(path: "endorse" | "pin" | "unendorse" | "unpin", summary: string) {
  const featuring = path === "endorse" || path === "pin";
  return route({
    method: "POST",
    path: `/api/v1/accounts/{id}/${path}`,
    summary,
    tags: ["accounts"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: AccountParams,
    response: RelationshipJson,
    handler: async ({ caller, params, module, services }) => {
      const accountId = userIdOf(caller);
      if (featuring) await module.endorse(accountId, params.id);
      else await module.unendorse(accountId, params.id);
      return services.relationships.relationship(accountId, params.id);
    },
  });
}

export const endorsementRoutes = [
  endorsementRoute("endorse", "Features a followed account on the caller's profile (422 when the caller does not follow it)"),
  endorsementRoute("pin", "Features a followed account on the caller's profile: the older name of `endorse`"),
  endorsementRoute("unendorse", "Stops featuring an account on the caller's profile"),
  endorsementRoute("unpin", "Stops featuring an account on the caller's profile: the older name of `unendorse`"),
  route({
    method: "GET",
    path: "/api/v1/endorsements",
    summary: "The accounts the caller features on their profile, newest first, paged with `Link`",
    tags: ["endorsements"],
    access: authenticated,
    scopes: ["read:accounts"],
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, query, module, services, url }) => {
      const page = pageRequest(query, ENDORSEMENTS_PAGE);
      return endorsedPageReply(services, url, await module.mine(userIdOf(caller), page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/endorsements",
    summary:
      "The accounts an account features on its profile, newest first, paged with `Link`; empty when its owner hides whom they follow or blocks the caller",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: AccountParams,
    query: idPageQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, params, query, module, services, url }) => {
      const page = pageRequest(query, ENDORSEMENTS_PAGE);
      const viewerId = caller.kind === "user" ? caller.accountId : null;
      return endorsedPageReply(services, url, await module.ofAccount(viewerId, params.id, page), page.limit);
    },
  }),
];
