import { z } from "zod";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { idPageLinks, idPageQuery, pageRequest } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { userOf } from "../lists/account-list-routes.js";

/**
 * A user's own domain blocks, two ways over the same rows: the spec's
 * `/api/v1/user-domain-block` (domain in the path; unblocking a domain that
 * is not blocked is a 409) and Mastodon's `/api/v1/domain_blocks` (domain as
 * a parameter; paged with `Link`).
 */

const DomainParams = z.object({ domain: z.string().min(1).max(253) });
/** Mastodon clients send `domain` in the body or in the query string. */
const DomainBody = z.object({ domain: z.string().min(1).max(253).optional() });
const DomainQuery = DomainBody;

function domainOf(body: { domain?: string | undefined }, query: { domain?: string | undefined }): string {
  const domain = body.domain ?? query.domain;
  if (!domain) throw new KithError("request.validation_failed", { message: "domain is required" });
  return domain;
}
const READ = ["read:blocks", "follow"];
const WRITE = ["write:blocks", "follow"];

export const domainBlockRoutes = [
  route({
    method: "GET",
    path: "/api/v1/user-domain-block",
    summary: "The domains the caller blocks",
    tags: ["user-domain-block"],
    access: authenticated,
    scopes: READ,
    response: z.array(z.string()),
    handler: async ({ caller, services }) => services.userDomainBlocks.all(userOf(caller).accountId),
  }),
  route({
    method: "POST",
    path: "/api/v1/user-domain-block/{domain}",
    summary:
      "Blocks a domain for the caller: hides its posts and notifications, removes the caller's followers there and refuses new follows of its accounts (existing follows stay)",
    tags: ["user-domain-block"],
    access: authenticated,
    scopes: WRITE,
    params: DomainParams,
    response: z.object({ domain: z.string() }),
    handler: async ({ caller, params, services }) => ({ domain: await services.userDomainBlocks.block(userOf(caller).accountId, params.domain) }),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/user-domain-block/{domain}",
    summary: "Unblocks a domain; 409 when it is not blocked",
    tags: ["user-domain-block"],
    access: authenticated,
    scopes: WRITE,
    params: DomainParams,
    response: z.object({}),
    handler: async ({ caller, params, services }) => {
      await services.userDomainBlocks.unblock(userOf(caller).accountId, params.domain, { strict: true });
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/domain_blocks",
    summary: "The domains the caller blocks, newest first, paged with `Link`",
    tags: ["domain_blocks"],
    access: authenticated,
    scopes: READ,
    query: idPageQuery,
    response: z.array(z.string()),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query, { defaultLimit: 100, maxLimit: 200 });
      const rows = await services.userDomainBlocks.list(userOf(caller).accountId, page);
      const link = idPageLinks(
        url,
        rows.map((row) => row.id),
        page.limit,
      );
      return Reply.json(
        rows.map((row) => row.domain),
        link ? { headers: { link } } : {},
      );
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/domain_blocks",
    summary: "Blocks a domain for the caller (`domain`)",
    tags: ["domain_blocks"],
    access: authenticated,
    scopes: WRITE,
    query: DomainQuery,
    body: DomainBody,
    response: z.object({}),
    handler: async ({ caller, query, body, services }) => {
      await services.userDomainBlocks.block(userOf(caller).accountId, domainOf(body, query));
      return {};
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/domain_blocks",
    summary: "Unblocks a domain for the caller (`domain`); unblocking one not blocked is not an error here",
    tags: ["domain_blocks"],
    access: authenticated,
    scopes: WRITE,
    query: DomainQuery,
    body: DomainBody,
    response: z.object({}),
    handler: async ({ caller, query, body, services }) => {
      await services.userDomainBlocks.unblock(userOf(caller).accountId, domainOf(body, query), { strict: false });
      return {};
    },
  }),
];
