import { z } from "zod";
import { authenticated, publicAccess } from "../../platform/http/access.js";
import { PollJson } from "../../mastodon/entities/status.js";
import { route } from "../core-route.js";
import { zInt, zList } from "../../platform/http/schemas.js";
import { actorOf, viewerOf } from "./status-route-helpers.js";

/** Mastodon's polls API. */

const PollParams = z.object({ id: z.string().min(1).max(64) });

export const pollRoutes = [
  route({
    method: "GET",
    path: "/api/v1/polls/{id}",
    summary: "A poll, if the caller may see its post",
    tags: ["polls"],
    access: publicAccess,
    scopes: ["read:statuses"],
    params: PollParams,
    response: PollJson,
    handler: async ({ caller, params, services }) => services.polls.get(params.id, viewerOf(caller)),
  }),
  route({
    method: "POST",
    path: "/api/v1/polls/{id}/votes",
    summary: "Votes on a poll: one choice, or several on a multiple-choice poll; once, before it ends, never on one's own",
    tags: ["polls"],
    access: authenticated,
    scopes: ["write:statuses"],
    params: PollParams,
    body: z.object({ choices: zList(zInt) }),
    response: PollJson,
    handler: async ({ caller, params, body, services }) => services.polls.vote(actorOf(caller), params.id, body.choices),
  }),
];
