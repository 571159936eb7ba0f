import { z } from "zod";
import { any } from "../../domain/permissions.js";
import type { DomainAllowRow } from "./domain-policy-store.js";
import { permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { actorIdOf } from "./domain-block-routes.js";

/**
 * The domain allowlist at Mastodon's `/api/v1/admin/domain_allows` paths and
 * shape (Admin::DomainAllow). It takes effect when the setting
 * `federationAllowlistEnabled` is on: then only listed domains (and their
 * subdomains) federate. Reads need Federation.Read or Federation.Manage;
 * changes Federation.Manage.
 */
const read = permission(any("Federation.Read", "Federation.Manage"));
const manage = permission(any("Federation.Manage"));
const TAGS = ["admin/domain-allows"];
const READ_SCOPES = ["admin:read", "admin:read:domain_allows"];
const WRITE_SCOPES = ["admin:write", "admin:write:domain_allows"];
const BASE = "/api/v1/admin/domain_allows";

const IdParams = z.object({ id: z.string().min(1).max(64) });

export const DomainAllowJson = z.object({ id: z.string(), domain: z.string(), created_at: z.string() });

function serialize(allow: DomainAllowRow): z.infer<typeof DomainAllowJson> {
  return { id: allow.id, domain: allow.domain, created_at: allow.createdAt };
}

export const adminDomainAllowRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "Allowed domains, newest first",
    description: "`limit` (at most 80), `max_id`, `min_id`, `since_id`; the neighbouring pages in the `Link` header.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: idPageQuery,
    response: z.array(DomainAllowJson),
    handler: async ({ services, query, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      return pagedReply(url, (await services.domainPolicy.listAllows(page)).map(serialize), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/{id}`,
    summary: "One allowed domain",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: IdParams,
    response: DomainAllowJson,
    handler: async ({ services, params }) => serialize(await services.domainPolicy.getAllow(params.id)),
  }),
  route({
    method: "POST",
    path: BASE,
    summary: "Allows a domain and its subdomains to federate in allowlist mode",
    description: "An already allowed domain is answered with its existing entry. 422 when the domain is not a domain name.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: z.object({ domain: z.string().min(1).max(300) }),
    response: DomainAllowJson,
    handler: async ({ services, caller, body }) => serialize(await services.domainPolicy.createAllow(body.domain, actorIdOf(caller))),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{id}`,
    summary: "Removes a domain from the allowlist",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: z.object({}),
    handler: async ({ services, caller, params }) => {
      await services.domainPolicy.deleteAllow(params.id, actorIdOf(caller));
      return Reply.json({});
    },
  }),
];
