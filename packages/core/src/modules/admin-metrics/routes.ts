import { z } from "zod";
import { any } from "../../domain/permissions.js";
import { permission } from "../../platform/http/access.js";
import { zInt, zList } from "../../platform/http/schemas.js";
import { moduleRoute } from "../module.js";
import { DIMENSION_KEYS, MEASURE_KEYS, type MetricParams, type MetricsService } from "./metrics-service.js";

const route = moduleRoute<MetricsService>();

/** Mastodon asks `view_dashboard`; here AdminSettings.Read or AdminSettings.Manage, which administrators hold and moderators do not. */
const read = permission(any("AdminSettings.Read", "AdminSettings.Manage"));
const TAGS = ["admin/dashboard"];
const SCOPES = ["admin:read"];

/** A date (`2026-01-31`) or a date and time. */
const When = z
  .string()
  .max(40)
  .refine((value) => !Number.isNaN(Date.parse(value)), "Expected a date")
  .transform((value) => new Date(value));
const TagParam = z.object({ id: z.string().max(64) }).optional();
const DomainParam = z.object({ domain: z.string().max(253) }).optional();

const Range = z.object({ start_at: When, end_at: When });

const MeasureBody = Range.extend({
  keys: zList(z.string().max(64)).pipe(z.array(z.string()).min(1)),
  tag_accounts: TagParam,
  tag_uses: TagParam,
  tag_servers: TagParam,
  instance_accounts: DomainParam,
  instance_media_attachments: DomainParam,
  instance_reports: DomainParam,
  instance_statuses: DomainParam,
  instance_follows: DomainParam,
  instance_followers: DomainParam,
});

const DimensionBody = Range.extend({
  keys: zList(z.string().max(64)).pipe(z.array(z.string()).min(1)),
  limit: zInt.optional(),
  tag_servers: TagParam,
  tag_languages: TagParam,
  instance_accounts: DomainParam,
  instance_languages: DomainParam,
});

const MeasureJson = z.object({
  key: z.string(),
  unit: z.string().nullable(),
  total: z.string(),
  human_value: z.string().optional(),
  previous_total: z.string(),
  data: z.array(z.object({ date: z.string(), value: z.string() })),
});

const DimensionJson = z.object({
  key: z.string(),
  data: z.array(
    z.object({
      key: z.string(),
      human_key: z.string(),
      value: z.string(),
      unit: z.string().optional(),
      human_value: z.string().optional(),
    }),
  ),
});

const CohortJson = z.object({
  period: z.string(),
  frequency: z.enum(["day", "month"]),
  data: z.array(z.object({ date: z.string(), rate: z.number(), value: z.string() })),
});

/** The parameter object a key reads its tag or server from (`tag_uses[id]`, `instance_statuses[domain]`). */
function paramsFor(key: string, body: Record<string, unknown>, base: MetricParams): MetricParams {
  const own = body[key] as { id?: string; domain?: string } | undefined;
  return { ...base, tagId: own?.id, domain: own?.domain?.toLowerCase() };
}

/** Keys Mastodon does not know are left out of the answer, as Mastodon leaves them out. */
const known = <K extends string>(keys: readonly K[], asked: readonly string[]): K[] =>
  [...new Set(asked)].filter((key): key is K => (keys as readonly string[]).includes(key));

export const metricsRoutes = [
  route({
    method: "POST",
    path: "/api/v1/admin/measures",
    summary: "Daily figures of the dashboard, from this server's data",
    description:
      "`keys[]`: active_users (local accounts that wrote, favourited or used a session), new_users, interactions (favourites, boosts " +
      "and replies local statuses got), opened_reports, resolved_reports, tag_accounts, tag_uses, tag_servers (with `<key>[id]`, a " +
      "tag's id), instance_accounts, instance_media_attachments (bytes), instance_reports, instance_statuses, instance_follows, " +
      "instance_followers (with `<key>[domain]`). `start_at`, `end_at`: dates, UTC days, at most 400. `previous_total` covers the " +
      "period of the same length before. Unknown keys are left out; a key missing its `id` or `domain` is 422.",
    tags: TAGS,
    access: read,
    scopes: SCOPES,
    body: MeasureBody,
    response: z.array(MeasureJson),
    handler: async ({ module, body }) => {
      const base = { startAt: body.start_at, endAt: body.end_at };
      return Promise.all(known(MEASURE_KEYS, body.keys).map((key) => module.measure(key, paramsFor(key, body, base))));
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/dimensions",
    summary: "Breakdowns of the dashboard, from this server's data",
    description:
      "`keys[]`: languages (of local statuses), servers (with the most statuses), space_usage (media bytes), software_versions, " +
      "tag_servers, tag_languages (with `<key>[id]`), instance_accounts (the server's accounts most followed from here), " +
      "instance_languages (with `<key>[domain]`); `sources` is always empty, since where sign-ups come from is not recorded. " +
      "`limit`: entries per key, 10 by default.",
    tags: TAGS,
    access: read,
    scopes: SCOPES,
    body: DimensionBody,
    response: z.array(DimensionJson),
    handler: async ({ module, body }) => {
      const base = { startAt: body.start_at, endAt: body.end_at, limit: body.limit };
      return Promise.all(known(DIMENSION_KEYS, body.keys).map((key) => module.dimension(key, paramsFor(key, body, base))));
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/retention",
    summary: "Retention cohorts: of the local accounts that signed up in each period, the share active in each period since",
    tags: TAGS,
    access: read,
    scopes: SCOPES,
    body: Range.extend({ frequency: z.enum(["day", "month"]) }),
    response: z.array(CohortJson),
    handler: ({ module, body }) => module.retention({ startAt: body.start_at, endAt: body.end_at, frequency: body.frequency }),
  }),
];
