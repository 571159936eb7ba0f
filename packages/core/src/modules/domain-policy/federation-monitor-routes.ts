import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { INBOX_WINDOW_MAX_MINUTES } from "./federation-monitor.js";
import type { DomainDeliveries } from "./federation-monitor.js";
import { permission } from "../../platform/http/access.js";
import { DEFAULT_PAGE, clampLimit } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { zInt } from "../../platform/http/schemas.js";

/**
 * Federation monitoring (the spec names the area, not its shapes): connected
 * domains with their account and status counts, delivery outcomes per domain,
 * unreachable domains, and incoming activities per minute. Reads need
 * Federation.Read or Federation.Manage; clearing a mark Federation.Manage.
 * Field names are camelCase, as the spec's other resources.
 */
const read = permission(any("Federation.Read", "Federation.Manage"));
const manage = permission(any("Federation.Manage"));
const TAGS = ["admin/federation"];
const READ_SCOPES = ["admin:read"];
const WRITE_SCOPES = ["admin:write"];
const BASE = "/api/v1/admin/federation";

const DeliveriesJson = z.object({
  domain: z.string(),
  succeeded: z.number(),
  failed: z.number(),
  lastSuccessAt: z.string().nullable(),
  lastFailureAt: z.string().nullable(),
  /** Distinct days with failures since the last success. */
  failureDays: z.number(),
  unreachable: z.boolean(),
  unreachableSince: z.string().nullable(),
});

function serializeDeliveries(row: DomainDeliveries): z.infer<typeof DeliveriesJson> {
  return { ...row, unreachable: row.unreachableSince !== null };
}

const ConnectedDomainJson = z.object({
  domain: z.string(),
  accounts: z.number(),
  posts: z.number(),
  deliveries: DeliveriesJson.nullable(),
});

const MinuteJson = z.object({ minute: z.string(), received: z.number() });

export const adminFederationRoutes = [
  route({
    method: "GET",
    path: `${BASE}/domains`,
    summary: "Connected domains: remote domains with known accounts, with account and post counts and delivery outcomes",
    description: "Most accounts first. `offset` and `limit` (default 20, at most 80); `total` counts every connected domain.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object({ limit: zInt.optional(), offset: zInt.pipe(z.number().int().min(0)).default(0) }),
    response: z.object({ total: z.number(), domains: z.array(ConnectedDomainJson) }),
    handler: async ({ services, query }) => {
      const { rows, total } = await services.federationMonitor.connectedDomains({
        limit: clampLimit(query.limit, DEFAULT_PAGE),
        offset: query.offset,
      });
      return {
        total,
        domains: rows.map((row) => ({ ...row, deliveries: row.deliveries ? serializeDeliveries(row.deliveries) : null })),
      };
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/deliveries`,
    summary: "Outbound delivery successes and failures per domain delivered to",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.array(DeliveriesJson),
    handler: async ({ services }) => (await services.federationMonitor.deliveries()).map(serializeDeliveries),
  }),
  route({
    method: "GET",
    path: `${BASE}/unreachable-domains`,
    summary: "Domains marked unreachable",
    description:
      "A domain is marked after failed deliveries on as many distinct days without a success between as the server's `unreachableAfterDays` setting says (7 by default), and cleared by one successful delivery or an activity received from it. Deliveries to it are skipped, except one attempt a day.",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    response: z.array(DeliveriesJson),
    handler: async ({ services }) => (await services.federationMonitor.unreachableDomains()).map(serializeDeliveries),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/unreachable-domains/{domain}`,
    summary: "Clears a domain's unreachable mark: deliveries to it resume",
    description: "404 when the domain is not marked.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: z.object({ domain: z.string().min(1).max(300) }),
    response: z.object({}),
    handler: async ({ services, params }) => {
      await services.federationMonitor.clearUnreachable(params.domain);
      return {};
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/inbox-metrics`,
    summary: "Activities received per minute over a sliding window, in total or from one domain",
    description: `\`minutes\`: the window (default 60, at most ${INBOX_WINDOW_MAX_MINUTES}), ending with the current minute; \`domain\`: one domain only. Counts accepted activities (signature verified, not refused).`,
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: z.object({
      minutes: zInt.pipe(z.number().int().min(1).max(INBOX_WINDOW_MAX_MINUTES)).default(60),
      domain: z.string().min(1).max(300).optional(),
    }),
    response: z.object({
      since: z.string(),
      minutes: z.number(),
      domain: z.string().nullable(),
      total: z.number(),
      perMinute: z.array(MinuteJson),
      topDomains: z.array(z.object({ domain: z.string(), received: z.number() })),
    }),
    handler: async ({ services, query }) => services.federationMonitor.inboxMetrics(query.minutes, query.domain ?? null),
  }),
];
