import { createHash } from "node:crypto";
import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { any } from "../../domain/permissions.js";
import type { DomainBlockSeverity, DomainBlockRow } from "./domain-policy-store.js";
import { permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool } from "../../platform/http/schemas.js";

/**
 * Administrators' domain blocks at Mastodon's `/api/v1/admin/domain_blocks`
 * paths and shape (Admin::DomainBlock). Mastodon's severities map to the
 * spec's: suspend = SUSPEND, silence = LIMIT, noop = NOOP. Reads need
 * Federation.Read or Federation.Manage; changes Federation.Manage.
 */
const read = permission(any("Federation.Read", "Federation.Manage"));
const manage = permission(any("Federation.Manage"));
const TAGS = ["admin/domain-blocks"];
const READ_SCOPES = ["admin:read", "admin:read:domain_blocks"];
const WRITE_SCOPES = ["admin:write", "admin:write:domain_blocks"];
const BASE = "/api/v1/admin/domain_blocks";

const MASTODON_SEVERITIES = ["silence", "suspend", "noop"] as const;
type MastodonSeverity = (typeof MASTODON_SEVERITIES)[number];
const TO_SPEC: Record<MastodonSeverity, DomainBlockSeverity> = { silence: "LIMIT", suspend: "SUSPEND", noop: "NOOP" };
const FROM_SPEC: Record<DomainBlockSeverity, MastodonSeverity> = { LIMIT: "silence", SUSPEND: "suspend", NOOP: "noop" };

/** Mastodon's names, and the spec's (any case) for clients of the spec. */
const Severity = z
  .string()
  .transform((value) => value.toLowerCase())
  .pipe(z.enum([...MASTODON_SEVERITIES, "limit"]))
  .transform((value): DomainBlockSeverity => (value === "limit" ? "LIMIT" : TO_SPEC[value]));

const Comment = z.string().max(5_000);
const IdParams = z.object({ id: z.string().min(1).max(64) });

/** Who acts, for the audit log. */
export function actorIdOf(caller: Caller): string | null {
  return caller.kind === "user" ? caller.accountId : null;
}

export const DomainBlockJson = z.object({
  id: z.string(),
  domain: z.string(),
  /** SHA-256 of the domain, hex: lets clients match obfuscated entries. */
  digest: z.string(),
  created_at: z.string(),
  severity: z.enum(MASTODON_SEVERITIES),
  reject_media: z.boolean(),
  reject_reports: z.boolean(),
  private_comment: z.string().nullable(),
  public_comment: z.string().nullable(),
  obfuscate: z.boolean(),
});

export function serializeDomainBlock(block: DomainBlockRow): z.infer<typeof DomainBlockJson> {
  return {
    id: block.id,
    domain: block.domain,
    digest: createHash("sha256").update(block.domain).digest("hex"),
    created_at: block.createdAt,
    severity: FROM_SPEC[block.severity],
    reject_media: block.rejectMedia,
    reject_reports: block.rejectReports,
    private_comment: block.privateComment,
    public_comment: block.publicComment,
    obfuscate: block.obfuscate,
  };
}

const Changes = z.object({
  severity: Severity.optional(),
  reject_media: zBool.optional(),
  reject_reports: zBool.optional(),
  private_comment: Comment.nullable().optional(),
  public_comment: Comment.nullable().optional(),
  obfuscate: zBool.optional(),
});

function changesOf(body: z.infer<typeof Changes>) {
  return {
    ...(body.severity !== undefined && { severity: body.severity }),
    ...(body.reject_media !== undefined && { rejectMedia: body.reject_media }),
    ...(body.reject_reports !== undefined && { rejectReports: body.reject_reports }),
    ...(body.private_comment !== undefined && { privateComment: body.private_comment || null }),
    ...(body.public_comment !== undefined && { publicComment: body.public_comment || null }),
    ...(body.obfuscate !== undefined && { obfuscate: body.obfuscate }),
  };
}

export const adminDomainBlockRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "Blocked domains, newest first",
    description: "`limit` (at most 80), `max_id`, `min_id`, `since_id`; the neighbouring pages in the `Link` header.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: idPageQuery,
    response: z.array(DomainBlockJson),
    handler: async ({ services, query, url }) => {
      const page = pageRequest(query, DEFAULT_PAGE);
      const blocks = await services.domainPolicy.listBlocks(page);
      return pagedReply(url, blocks.map(serializeDomainBlock), page.limit);
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/{id}`,
    summary: "One domain block",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: IdParams,
    response: DomainBlockJson,
    handler: async ({ services, params }) => serializeDomainBlock(await services.domainPolicy.getBlock(params.id)),
  }),
  route({
    method: "POST",
    path: BASE,
    summary: "Blocks a domain and its subdomains",
    description:
      "severity: suspend (SUSPEND: nothing is exchanged), silence (LIMIT, the default: hidden from public timelines, reaches followers only) or noop (NOOP: only the media and report options apply). 422 when the domain is invalid or already blocked.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: Changes.extend({ domain: z.string().min(1).max(300) }),
    response: DomainBlockJson,
    handler: async ({ services, caller, body }) =>
      serializeDomainBlock(await services.domainPolicy.createBlock({ domain: body.domain, ...changesOf(body) }, actorIdOf(caller))),
  }),
  route({
    method: "PUT",
    path: `${BASE}/{id}`,
    summary: "Changes a domain block's severity, options or comments",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    body: Changes,
    response: DomainBlockJson,
    handler: async ({ services, caller, params, body }) =>
      serializeDomainBlock(await services.domainPolicy.updateBlock(params.id, changesOf(body), actorIdOf(caller))),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{id}`,
    summary: "Lifts a domain block",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: z.object({}),
    handler: async ({ services, caller, params }) => {
      await services.domainPolicy.deleteBlock(params.id, actorIdOf(caller));
      return Reply.json({});
    },
  }),
];
