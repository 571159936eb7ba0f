import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { FullTagJson } from "../../mastodon/entities/tag.js";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { moduleRoute } from "../module.js";
import type { FeaturedTagService } from "./featured-tag-service.js";

const route = moduleRoute<FeaturedTagService>();

function userIdOf(caller: Caller): string {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller.accountId;
}

/** Mastodon's FeaturedTag entity. */
export const FeaturedTagJson = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  statuses_count: z.number().int(),
  last_status_at: z.string().nullable(),
});

const TagParams = z.object({ name: z.string().min(1).max(200) });

export const featuredTagRoutes = [
  route({
    method: "GET",
    path: "/api/v1/featured_tags",
    summary: "The hashtags the caller features on their profile, in the order they were featured",
    tags: ["featured_tags"],
    access: authenticated,
    scopes: ["read:accounts"],
    response: z.array(FeaturedTagJson),
    handler: ({ caller, module }) => module.ofAccount(userIdOf(caller)),
  }),
  route({
    method: "POST",
    path: "/api/v1/featured_tags",
    summary: "Features a hashtag on the caller's profile (at most `max_featured_tags`); featuring it again returns it",
    tags: ["featured_tags"],
    access: authenticated,
    scopes: ["write:accounts"],
    body: z.object({ name: z.string().min(1).max(200) }),
    response: FeaturedTagJson,
    handler: ({ caller, body, module }) => module.feature(userIdOf(caller), body.name),
  }),
  route({
    method: "DELETE",
    path: "/api/v1/featured_tags/{id}",
    summary: "Stops featuring a hashtag on the caller's profile",
    tags: ["featured_tags"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: z.object({ id: z.string().min(1).max(64) }),
    response: z.object({}),
    handler: async ({ caller, params, module }) => {
      await module.unfeature(userIdOf(caller), params.id);
      return {};
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/featured_tags/suggestions",
    summary: "The hashtags the caller used most and does not feature yet (up to 10)",
    tags: ["featured_tags"],
    access: authenticated,
    scopes: ["read:accounts"],
    response: z.array(FullTagJson),
    handler: ({ caller, module }) => module.suggestions(userIdOf(caller)),
  }),
  route({
    method: "POST",
    path: "/api/v1/tags/{name}/feature",
    summary: "Features a hashtag on the caller's profile, answered with the tag (`featuring` true)",
    tags: ["tags"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: TagParams,
    response: FullTagJson,
    handler: ({ caller, params, module }) => module.featureTag(userIdOf(caller), params.name),
  }),
  route({
    method: "POST",
    path: "/api/v1/tags/{name}/unfeature",
    summary: "Stops featuring a hashtag on the caller's profile, answered with the tag (`featuring` false)",
    tags: ["tags"],
    access: authenticated,
    scopes: ["write:accounts"],
    params: TagParams,
    response: FullTagJson,
    handler: ({ caller, params, module }) => module.unfeatureTag(userIdOf(caller), params.name),
  }),
  route({
    method: "GET",
    path: "/api/v1/accounts/{id}/featured_tags",
    summary: "The hashtags an account features on its profile",
    tags: ["accounts"],
    access: publicAccess,
    scopes: ["read:accounts"],
    params: z.object({ id: z.string().min(1).max(64) }),
    response: z.array(FeaturedTagJson),
    handler: ({ params, module }) => module.ofAccount(params.id),
  }),
];
