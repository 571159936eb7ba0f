import { z } from "zod";
import { moduleRoute } from "../module.js";
import type { SuggestionService } from "./suggestion-service.js";
import { KithError } from "../../domain/errors.js";
import { authenticated } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { clampLimit } from "../../platform/http/pagination.js";
import { zInt } from "../../platform/http/schemas.js";

const route = moduleRoute<SuggestionService>();

/** Follow suggestions, Mastodon's v1 (accounts) and v2 (accounts with why they were suggested). */

const SuggestionQuery = z.object({ limit: zInt.optional() });
const PAGE = { defaultLimit: 40, maxLimit: 80 };

const SuggestionJson = z.object({
  source: z.enum(["staff", "past_interactions", "global"]),
  sources: z.array(z.enum(["featured", "most_followed", "most_interactions", "similar_to_recently_followed", "friends_of_friends"])),
  account: AccountJson,
});

export const suggestionRoutes = [
  route({
    method: "GET",
    path: "/api/v1/suggestions",
    summary: "Accounts the caller may want to follow",
    tags: ["suggestions"],
    access: authenticated,
    scopes: ["read:accounts"],
    query: SuggestionQuery,
    response: z.array(AccountJson),
    handler: async ({ caller, query, module }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      return (await module.suggest(caller.accountId, clampLimit(query.limit, PAGE))).map((s) => s.account);
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/suggestions",
    summary: "Accounts the caller may want to follow, each with why",
    tags: ["suggestions"],
    access: authenticated,
    scopes: ["read:accounts"],
    query: SuggestionQuery,
    response: z.array(SuggestionJson),
    handler: async ({ caller, query, module }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      return (await module.suggest(caller.accountId, clampLimit(query.limit, PAGE))).map((s) => ({
        // Mastodon's `source` is the deprecated summary of `sources`: friends of friends count as past interactions there.
        source: s.source === "global" ? ("global" as const) : ("past_interactions" as const),
        sources: [s.source === "global" ? ("most_interactions" as const) : ("friends_of_friends" as const)],
        account: s.account,
      }));
    },
  }),
];
