import { z } from "zod";
import { all, any } from "../../domain/permissions.js";
import type { EmailDomainAllowRow } from "./email-domain-allows-store.js";
import { permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, clampLimit, cursorPageLinks, cursorPageQuery } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/** One allowed domain. The spec does not show the entry shape; camelCase, as the spec's own endpoints are. */
const EmailAllowJson = z.object({
  domain: z.string(),
  createdAt: z.string(),
});

function serialize(row: EmailDomainAllowRow): z.infer<typeof EmailAllowJson> {
  return { domain: row.domain, createdAt: row.createdAt };
}

export const emailAllowRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/email-allow",
    summary: "The email-domain allowlist, in domain order",
    description: "Paginated with an opaque `cursor` (the order is by domain, not by id); the next page is in the Link header.",
    tags: ["admin/email-allow"],
    access: permission(all("AdminSettings.Manage", any("AdminSettings.Read", "AdminSettings.Manage"))),
    scopes: ["admin:read"],
    query: cursorPageQuery,
    response: z.array(EmailAllowJson),
    handler: async ({ query, services, url }) => {
      const limit = clampLimit(query.limit, DEFAULT_PAGE);
      const page = await services.emailAllow.list({ limit, ...(query.cursor !== undefined && { cursor: query.cursor }) });
      const link = cursorPageLinks(url, { next: page.next, prev: null }, limit);
      return Reply.json(page.items.map(serialize), link ? { headers: { link } } : {});
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/email-allow",
    summary: "Adds a domain to the email allowlist",
    description:
      "When the setting emailAllowlistEnabled is on, only addresses of allowed domains and their subdomains can register. 409 when the domain is already listed; 422 when it is not a domain name.",
    tags: ["admin/email-allow"],
    access: permission(any("AdminSettings.Manage")),
    scopes: ["admin:write"],
    body: z.object({ domain: z.string().min(1).max(300) }),
    response: EmailAllowJson,
    handler: async ({ body, services }) => serialize(await services.emailAllow.add(body.domain)),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/admin/email-allow/{domain}",
    summary: "Removes a domain from the email allowlist (404 when it is not listed)",
    tags: ["admin/email-allow"],
    access: permission(any("AdminSettings.Manage")),
    scopes: ["admin:write"],
    params: z.object({ domain: z.string().min(1).max(300) }),
    handler: async ({ params, services }) => {
      await services.emailAllow.remove(params.domain);
      return Reply.empty(204);
    },
  }),
];
