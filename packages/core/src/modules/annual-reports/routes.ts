import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { StatusJson } from "../../mastodon/entities/status.js";
import { authenticated } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { moduleRoute } from "../module.js";
import type { AnnualReportService } from "./annual-reports-service.js";

const route = moduleRoute<AnnualReportService>();
const TAGS = ["annual_reports"];
const BASE = "/api/v1/annual_reports";
const YearParams = z.object({
  year: z
    .string()
    .regex(/^\d{4}$/, "Expected a year")
    .transform(Number),
});

const AnnualReportJson = z.object({
  year: z.number().int(),
  account_id: z.string(),
  schema_version: z.number().int(),
  share_url: z.string().nullable(),
  data: z.object({
    archetype: z.enum(["lurker", "booster", "pollster", "replier", "oracle"]),
    time_series: z.array(z.object({ month: z.number(), statuses: z.number(), following: z.number(), followers: z.number() })),
    top_hashtags: z.array(z.object({ name: z.string(), count: z.number() })),
    top_statuses: z.object({ by_reblogs: z.string().nullable(), by_favourites: z.string().nullable(), by_replies: z.string().nullable() }),
    most_used_apps: z.array(z.object({ name: z.string(), count: z.number() })),
    type_distribution: z.object({ total: z.number(), reblogs: z.number(), replies: z.number(), standalone: z.number() }),
    percentiles: z.object({ followers: z.number(), statuses: z.number() }),
    commonly_interacted_with: z.array(z.object({ account_id: z.string(), count: z.number() })),
  }),
});
const WrappedJson = z.object({ annual_reports: z.array(AnnualReportJson), accounts: z.array(AccountJson), statuses: z.array(StatusJson) });

function accountOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

export const annualReportRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "The caller's annual reports not read yet, with the accounts and statuses they name",
    tags: TAGS,
    access: authenticated,
    scopes: ["read:accounts"],
    response: WrappedJson,
    handler: ({ module, caller }) => module.unread(accountOf(caller)),
  }),
  route({
    method: "GET",
    path: `${BASE}/{year}`,
    summary: "The caller's report of a year, once generated (404 before)",
    tags: TAGS,
    access: authenticated,
    scopes: ["read:accounts"],
    params: YearParams,
    response: WrappedJson,
    handler: ({ module, caller, params }) => module.report(accountOf(caller), params.year),
  }),
  route({
    method: "GET",
    path: `${BASE}/{year}/state`,
    summary: "Whether the caller's report of a year is available, generating, can be generated (eligible) or not (ineligible)",
    description: "A year is eligible once the account wrote a status in it, from 2000 to this year.",
    tags: TAGS,
    access: authenticated,
    scopes: ["read:accounts"],
    params: YearParams,
    response: z.object({ state: z.enum(["available", "generating", "eligible", "ineligible"]) }),
    handler: async ({ module, caller, params }) => ({ state: await module.state(accountOf(caller), params.year) }),
  }),
  route({
    method: "POST",
    path: `${BASE}/{year}/generate`,
    summary: "Generates the caller's report of a year on the queue (202); asking again while it is generating or generated changes nothing",
    description: "422 for a year with nothing to report.",
    tags: TAGS,
    access: authenticated,
    scopes: ["write:accounts"],
    params: YearParams,
    handler: async ({ module, caller, params }) => {
      await module.generate(accountOf(caller), params.year);
      return Reply.json({}, { status: 202 });
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{year}/read`,
    summary: "Marks the caller's report of a year read: it leaves the list of unread ones (404 when not generated)",
    tags: TAGS,
    access: authenticated,
    scopes: ["write:accounts"],
    params: YearParams,
    response: z.object({}),
    handler: async ({ module, caller, params }) => {
      await module.read(accountOf(caller), params.year);
      return {};
    },
  }),
];
