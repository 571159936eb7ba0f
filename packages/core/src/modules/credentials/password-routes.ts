import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { authenticated, signedOut } from "../../platform/http/access.js";
import { CodeSentJson } from "../../mastodon/entities/credentials.js";
import { route } from "../core-route.js";

/**
 * The spec's password endpoints (paths as the spec gives them; its body
 * fields are "not shown", so they are camelCase like the spec's other
 * fields). Recovery is only for callers without a session: a request with a
 * token gets 403 (`auth.must_not_be_authenticated`).
 */
const TAGS = ["password"];
const BASE = "/api/v1/accounts/password";
const Password = z.string().max(1_000);
const Code = z.string().trim().min(1).max(64);

/** Recovery names the account by `identifier`, or by `email` or `username` as clients may send. */
const Identified = z
  .object({
    identifier: z.string().trim().min(1).max(320).optional(),
    email: z.string().trim().min(1).max(320).optional(),
    username: z.string().trim().min(1).max(320).optional(),
  })
  .refine((body) => Boolean(body.identifier ?? body.email ?? body.username), {
    message: "identifier (an email address or a username) is required",
    path: ["identifier"],
  });

const identifierOf = (body: { identifier?: string | undefined; email?: string | undefined; username?: string | undefined }): string =>
  body.identifier ?? body.email ?? body.username ?? "";

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

export const passwordRoutes = [
  route({
    method: "POST",
    path: `${BASE}/change/request`,
    summary: "Step 1 of a password change: checks the current password, keeps the new one aside and emails a code",
    tags: TAGS,
    access: authenticated,
    scopes: ["write", "write:accounts"],
    body: z.object({ currentPassword: Password, newPassword: Password }),
    response: CodeSentJson,
    handler: async ({ caller, body, services }) => {
      const user = userOf(caller);
      const sent = await services.password.requestChange(user.accountId, body.currentPassword, body.newPassword);
      return { sent: true as const, expiresAt: sent.expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/change/confirm`,
    summary: "Step 2 of a password change: checks the code, applies the password, emails a notice, ends every other session",
    tags: TAGS,
    access: authenticated,
    scopes: ["write", "write:accounts"],
    body: z.object({ code: Code }),
    response: z.object({ changed: z.literal(true), signedOutSessions: z.number().int() }),
    handler: async ({ caller, body, services, clientIp }) => {
      const user = userOf(caller);
      const { signedOut: count } = await services.password.confirmChange(user.accountId, user.sessionId, body.code, clientIp);
      return { changed: true as const, signedOutSessions: count };
    },
  }),
  route({
    method: "PUT",
    path: `${BASE}/change/resend-code`,
    summary: "Sends a new code for the password change in progress (older codes stop working); rate limited",
    tags: TAGS,
    access: authenticated,
    scopes: ["write", "write:accounts"],
    response: CodeSentJson,
    handler: async ({ caller, services }) => {
      const user = userOf(caller);
      const sent = await services.password.resendChangeCode(user.accountId);
      return { sent: true as const, expiresAt: sent.expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/recover`,
    summary: "Step 1 of recovery: emails a code to the account named by email or username; answers alike for unknown accounts; rate limited",
    tags: TAGS,
    access: signedOut,
    body: Identified,
    status: 202,
    response: z.object({ accepted: z.literal(true) }),
    handler: async ({ body, services, clientIp }) => {
      await services.password.recover(identifierOf(body), clientIp);
      return { accepted: true as const };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/recover/check-code`,
    summary: "Step 2 of recovery: checks the code and lets step 3 set the password with it for a while",
    tags: TAGS,
    access: signedOut,
    body: Identified.and(z.object({ code: Code })),
    response: z.object({ checked: z.literal(true) }),
    handler: async ({ body, services }) => {
      await services.password.checkRecoveryCode(identifierOf(body), body.code);
      return { checked: true as const };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/recover/change`,
    summary: "Step 3 of recovery: with the checked code, sets the new password, emails a notice and ends every session",
    tags: TAGS,
    access: signedOut,
    body: Identified.and(z.object({ code: Code, newPassword: Password })),
    response: z.object({ changed: z.literal(true) }),
    handler: async ({ body, services, clientIp }) => {
      await services.password.completeRecovery(identifierOf(body), body.code, body.newPassword, clientIp);
      return { changed: true as const };
    },
  }),
];
