import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { type PageSize, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { zBool, zInt } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import type { SignUpBlockService } from "./sign-up-blocks-service.js";

const route = moduleRoute<SignUpBlockService>();

/**
 * Mastodon's admin blocks on sign-ups. Mastodon asks `manage_blocks` for
 * them; here reads need AdminSettings.Read or AdminSettings.Manage, changes
 * AdminSettings.Manage, as the email-domain allowlist they stand beside.
 */
const read = permission(any("AdminSettings.Read", "AdminSettings.Manage"));
const manage = permission(any("AdminSettings.Manage"));
/** Mastodon's page size for these lists. */
const BLOCKS_PAGE: PageSize = { defaultLimit: 100, maxLimit: 200 };
const PAGE =
  "Newest first; `limit` (100 by default, at most 200), `max_id`, `min_id`, `since_id`; the neighbouring pages in the `Link` header.";
const IdParams = z.object({ id: z.string().min(1).max(64) });
const SEVERITIES = ["sign_up_requires_approval", "sign_up_block", "no_access"] as const;

const CanonicalEmailBlockJson = z.object({ id: z.string(), canonical_email_hash: z.string() });
const EmailDomainBlockJson = z.object({
  id: z.string(),
  domain: z.string(),
  allow_with_approval: z.boolean(),
  created_at: z.string(),
  history: z.array(z.object({ day: z.string(), accounts: z.string(), uses: z.string() })),
});
const IpBlockJson = z.object({
  id: z.string(),
  ip: z.string(),
  severity: z.enum(SEVERITIES),
  comment: z.string(),
  created_at: z.string(),
  expires_at: z.string().nullable(),
});

function crud(kind: string, scope: string) {
  return {
    tags: [`admin/${kind}`],
    readScopes: ["admin:read", `admin:read:${scope}`],
    writeScopes: ["admin:write", `admin:write:${scope}`],
    base: `/api/v1/admin/${kind}`,
  };
}

const canonical = crud("canonical_email_blocks", "canonical_email_blocks");
const domains = crud("email_domain_blocks", "email_domain_blocks");
const ips = crud("ip_blocks", "ip_blocks");
const Email = z.string().max(320);
/** Seconds; Mastodon's `expires_in`. */
const ExpiresIn = zInt.pipe(
  z
    .number()
    .int()
    .min(1)
    .max(10 * 366 * 86_400),
);

export const signUpBlockRoutes = [
  route({
    method: "GET",
    path: canonical.base,
    summary: "Addresses blocked from signing up, by the hash of their canonical form",
    description: PAGE,
    tags: canonical.tags,
    access: read,
    scopes: canonical.readScopes,
    query: idPageQuery,
    response: z.array(CanonicalEmailBlockJson),
    handler: async ({ module, query, url }) => {
      const page = pageRequest(query, BLOCKS_PAGE);
      return pagedReply(url, await module.listCanonical(page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${canonical.base}/{id}`,
    summary: "One canonical email block",
    tags: canonical.tags,
    access: read,
    scopes: canonical.readScopes,
    params: IdParams,
    response: CanonicalEmailBlockJson,
    handler: ({ module, params }) => module.getCanonical(params.id),
  }),
  route({
    method: "POST",
    path: `${canonical.base}/test`,
    summary: "The canonical email blocks an address matches",
    tags: canonical.tags,
    access: read,
    scopes: canonical.readScopes,
    body: z.object({ email: Email.min(1) }),
    response: z.array(CanonicalEmailBlockJson),
    handler: ({ module, body }) => module.testCanonical(body.email),
  }),
  route({
    method: "POST",
    path: canonical.base,
    summary: "Blocks an address, and every address of the same canonical form, from signing up",
    description:
      "`email`, or `canonical_email_hash` (SHA-256 in hex of the canonical form). The canonical form is Mastodon's: lower-cased, " +
      "dots of the local part dropped and any `+tag` cut. 422 when the form is blocked already.",
    tags: canonical.tags,
    access: manage,
    scopes: canonical.writeScopes,
    body: z.object({ email: Email.optional(), canonical_email_hash: z.string().max(128).optional() }),
    response: CanonicalEmailBlockJson,
    handler: ({ module, body }) => module.createCanonical({ email: body.email, hash: body.canonical_email_hash }),
  }),
  route({
    method: "DELETE",
    path: `${canonical.base}/{id}`,
    summary: "Lifts a canonical email block",
    tags: canonical.tags,
    access: manage,
    scopes: canonical.writeScopes,
    params: IdParams,
    response: z.object({}),
    handler: async ({ module, params }) => {
      await module.removeCanonical(params.id);
      return {};
    },
  }),
  route({
    method: "GET",
    path: domains.base,
    summary: "Email domains blocked from signing up, with a week of daily attempts",
    description: `${PAGE} \`history\`: per day (newest first), \`uses\` is the sign-ups the block stopped or held, \`accounts\` the network addresses they came from.`,
    tags: domains.tags,
    access: read,
    scopes: domains.readScopes,
    query: idPageQuery,
    response: z.array(EmailDomainBlockJson),
    handler: async ({ module, query, url }) => {
      const page = pageRequest(query, BLOCKS_PAGE);
      return pagedReply(url, await module.listDomains(page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${domains.base}/{id}`,
    summary: "One email domain block",
    tags: domains.tags,
    access: read,
    scopes: domains.readScopes,
    params: IdParams,
    response: EmailDomainBlockJson,
    handler: ({ module, params }) => module.getDomain(params.id),
  }),
  route({
    method: "POST",
    path: domains.base,
    summary: "Blocks sign-ups with addresses of a domain and its subdomains",
    description:
      "With `allow_with_approval`, such sign-ups are let through to wait for approval instead. 422 for what is not a domain " +
      "name, or a domain blocked already.",
    tags: domains.tags,
    access: manage,
    scopes: domains.writeScopes,
    body: z.object({ domain: z.string().min(1).max(300), allow_with_approval: zBool.optional() }),
    response: EmailDomainBlockJson,
    handler: ({ module, body }) => module.createDomain({ domain: body.domain, allowWithApproval: body.allow_with_approval ?? false }),
  }),
  route({
    method: "DELETE",
    path: `${domains.base}/{id}`,
    summary: "Lifts an email domain block",
    tags: domains.tags,
    access: manage,
    scopes: domains.writeScopes,
    params: IdParams,
    response: z.object({}),
    handler: async ({ module, params }) => {
      await module.removeDomain(params.id);
      return {};
    },
  }),
  route({
    method: "GET",
    path: ips.base,
    summary: "IP ranges blocked from signing up, or from any access",
    description: PAGE,
    tags: ips.tags,
    access: read,
    scopes: ips.readScopes,
    query: idPageQuery,
    response: z.array(IpBlockJson),
    handler: async ({ module, query, url }) => {
      const page = pageRequest(query, BLOCKS_PAGE);
      return pagedReply(url, await module.listIp(page), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${ips.base}/{id}`,
    summary: "One IP block",
    tags: ips.tags,
    access: read,
    scopes: ips.readScopes,
    params: IdParams,
    response: IpBlockJson,
    handler: ({ module, params }) => module.getIp(params.id),
  }),
  route({
    method: "POST",
    path: ips.base,
    summary: "Blocks an IP address or CIDR range",
    description:
      "`severity`: `sign_up_requires_approval` (sign-ups from it wait for approval), `sign_up_block` (refused, 403), `no_access` " +
      "(every request from it answered 403 `auth.address_blocked`, with a token issued before the block or without one). `expires_in` in seconds; the block is gone once it expires. The range is shown " +
      "with its host bits cleared. 422 for what is not an address or range, or a range blocked already.",
    tags: ips.tags,
    access: manage,
    scopes: ips.writeScopes,
    body: z.object({
      ip: z.string().min(1).max(64),
      severity: z.enum(SEVERITIES),
      comment: z.string().max(1_000).optional(),
      expires_in: ExpiresIn.optional(),
    }),
    response: IpBlockJson,
    handler: ({ module, body }) =>
      module.createIp({ ip: body.ip, severity: body.severity, comment: body.comment, expiresIn: body.expires_in }),
  }),
  route({
    method: "PUT",
    path: `${ips.base}/{id}`,
    summary: "Changes an IP block: its range, severity, comment or expiry",
    tags: ips.tags,
    access: manage,
    scopes: ips.writeScopes,
    params: IdParams,
    body: z.object({
      ip: z.string().min(1).max(64).optional(),
      severity: z.enum(SEVERITIES).optional(),
      comment: z.string().max(1_000).optional(),
      expires_in: ExpiresIn.optional(),
    }),
    response: IpBlockJson,
    handler: ({ module, params, body }) =>
      module.updateIp(params.id, { ip: body.ip, severity: body.severity, comment: body.comment, expiresIn: body.expires_in }),
  }),
  route({
    method: "DELETE",
    path: `${ips.base}/{id}`,
    summary: "Lifts an IP block",
    tags: ips.tags,
    access: manage,
    scopes: ips.writeScopes,
    params: IdParams,
    response: z.object({}),
    handler: async ({ module, params }) => {
      await module.removeIp(params.id);
      return {};
    },
  }),
];
