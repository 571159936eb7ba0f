import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import type { SessionView } from "./session-service.js";
import { authenticated } from "../../platform/http/access.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/**
 * Sessions: every access token is one. Paths are Kith's own (the spec has
 * none); fields are snake_case like the Mastodon-side OAuth endpoints.
 */
const SessionJson = z.object({
  id: z.string(),
  app_name: z.string().nullable(),
  app_website: z.string().nullable(),
  user_agent: z.string().nullable(),
  ip: z.string().nullable(),
  scopes: z.array(z.string()),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  current: z.boolean(),
});

function serializeSession(session: SessionView): z.infer<typeof SessionJson> {
  return {
    id: session.id,
    app_name: session.appName,
    app_website: session.appWebsite,
    user_agent: session.userAgent,
    ip: session.ip,
    scopes: [...session.scopes],
    created_at: session.createdAt,
    last_used_at: session.lastUsedAt,
    expires_at: session.expiresAt,
    revoked_at: session.revokedAt,
    current: session.current,
  };
}

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

const SessionParams = z.object({ sessionId: z.string().regex(/^se_[0-9a-z]{26}$/) });

export const sessionRoutes = [
  route({
    method: "GET",
    path: "/api/v1/sessions",
    summary: "The caller's sessions (access tokens), newest first, revoked ones included until deleted",
    tags: ["sessions"],
    access: authenticated,
    response: z.array(SessionJson),
    handler: async ({ caller, services }) => {
      const user = userOf(caller);
      return (await services.sessions.listOwn(user.accountId, user.sessionId)).map(serializeSession);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/sessions/revoke-others",
    summary: "Revokes every session of the caller except the one making the request",
    tags: ["sessions"],
    access: authenticated,
    response: z.object({ revoked: z.number().int() }),
    handler: async ({ caller, services }) => {
      const user = userOf(caller);
      return { revoked: await services.sessions.revokeOthers(user.accountId, user.sessionId) };
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/sessions/purge",
    summary: "Deletes the records of the caller's revoked and expired sessions",
    tags: ["sessions"],
    access: authenticated,
    response: z.object({ deleted: z.number().int() }),
    handler: async ({ caller, services }) => {
      const user = userOf(caller);
      return { deleted: await services.sessions.purgeEnded(user.accountId, user.sessionId) };
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/sessions/{sessionId}",
    summary: "Revokes one of the caller's sessions; the current one is refused with 409",
    tags: ["sessions"],
    access: authenticated,
    params: SessionParams,
    response: SessionJson,
    handler: async ({ caller, params, services }) => {
      const user = userOf(caller);
      return serializeSession(await services.sessions.revokeOwn(user.accountId, user.sessionId, params.sessionId));
    },
  }),
  route({
    method: "DELETE",
    path: "/api/v1/sessions/{sessionId}/record",
    summary: "Deletes the record of one of the caller's sessions (a live one stops working); the current one is refused with 409",
    tags: ["sessions"],
    access: authenticated,
    params: SessionParams,
    status: 204,
    handler: async ({ caller, params, services }) => {
      const user = userOf(caller);
      await services.sessions.deleteOwn(user.accountId, user.sessionId, params.sessionId);
      return Reply.empty(204);
    },
  }),
];
