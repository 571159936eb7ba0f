import { z } from "zod";
import { KithError, isKithError, statusOf } from "../../domain/errors.js";
import { anyToken, authenticated, publicAccess } from "../../platform/http/access.js";
import { PAGE_HEADERS, messagePage } from "../auth/oauth-pages.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";

/** Mastodon's Token entity, as `POST /api/v1/accounts` answers it. */
const TokenJson = z.object({
  access_token: z.string(),
  token_type: z.literal("Bearer"),
  scope: z.string(),
  created_at: z.number().int(),
  refresh_token: z.string().optional(),
});

/** Fields are loose here and checked by the service, so every problem is reported per field at once, as Mastodon does. */
const RegisterBody = z.object({
  username: z.string().max(1_000).optional(),
  email: z.string().max(1_000).optional(),
  password: z.string().max(1_000).optional(),
  /** `true` in JSON; `"true"`, `"1"` or `"on"` from forms. */
  agreement: z.union([z.boolean(), z.string(), z.number()]).optional(),
  locale: z.string().max(64).optional(),
  reason: z.string().max(10_000).optional(),
  date_of_birth: z.string().optional(),
});

function accepted(value: boolean | string | number | undefined): boolean {
  if (typeof value === "boolean") return value;
  if (typeof value === "number") return value === 1;
  return typeof value === "string" && ["true", "1", "on", "yes"].includes(value.trim().toLowerCase());
}

/**
 * The 422 of a refused sign-up in Mastodon's shape. Our error body keeps its
 * envelope (`error` for people, `code`), but `details` is an object keyed
 * by field, each an array of `{error: "ERR_*", description}`, instead of
 * the usual array of `{field, message, code}`: Mastodon clients read
 * `details.username[0].error` to mark the field and translate the message,
 * and registration is where they do it. The status still comes from the
 * catalog, through the error's code.
 */
function mastodonValidationReply(error: KithError): Reply {
  const details: Record<string, Array<{ error: string; description: string }>> = {};
  for (const detail of error.details ?? []) {
    const field = detail.field ?? "base";
    const entries = details[field] ?? [];
    entries.push({ error: detail.code ?? "ERR_INVALID", description: detail.message });
    details[field] = entries;
  }
  return Reply.json({ error: error.message, code: error.code, details }, { status: statusOf(error.code) });
}

function htmlPage(title: string, message: string, status: number): Reply {
  return Reply.text(messagePage(title, message), "text/html; charset=utf-8", { status, headers: { ...PAGE_HEADERS } });
}

export const registrationRoutes = [
  route({
    method: "POST",
    path: "/api/v1/accounts",
    summary: "Registers an account (Mastodon's sign-up): answers a Token for the new user",
    description:
      "Needs a token with write:accounts, normally an app token from client_credentials. In approval mode `reason` is required and the account cannot sign in until approved; in closed mode the request is refused (403). Problems are 422 with `details` per field carrying Mastodon's ERR_* codes. Limited per address (429 with Retry-After).",
    tags: ["accounts"],
    access: anyToken,
    scopes: ["write:accounts"],
    body: RegisterBody,
    response: TokenJson,
    handler: async ({ body, caller, services, request, clientIp }) => {
      if (caller.kind === "guest") throw new KithError("auth.unauthenticated");
      const appId = caller.kind === "app" ? caller.appId : await services.sessions.appIdOf(caller.sessionId);
      try {
        const registration = await services.registration.register(
          {
            username: body.username,
            email: body.email,
            password: body.password,
            agreement: accepted(body.agreement),
            locale: body.locale,
            reason: body.reason,
          },
          { appId, scopes: caller.scopes, ip: clientIp, userAgent: request.headers.get("user-agent") },
        );
        return {
          access_token: registration.accessToken,
          token_type: "Bearer" as const,
          scope: registration.scopes.join(" "),
          created_at: Math.floor(new Date(registration.createdAt).getTime() / 1000),
          ...(registration.refreshToken !== null && { refresh_token: registration.refreshToken }),
        };
      } catch (error) {
        if (isKithError(error) && error.code === "registration.invalid") return mastodonValidationReply(error);
        throw error;
      }
    },
  }),
  route({
    method: "GET",
    path: "/auth/confirmation",
    summary: "Follows the link of a confirmation mail: confirms the address (once; the link expires after 24 hours)",
    tags: ["accounts"],
    access: publicAccess,
    query: z.object({ confirmation_token: z.string().max(512).optional() }),
    produces: "text/html",
    handler: async ({ query, services }) => {
      try {
        if (!query.confirmation_token) throw new KithError("registration.confirmation_invalid");
        const account = await services.registration.confirmEmail(query.confirmation_token);
        return htmlPage("Email address confirmed", `Thank you, ${account.username}: your email address is confirmed.`, 200);
      } catch (error) {
        if (isKithError(error) && error.code === "registration.confirmation_invalid") {
          return htmlPage("Confirmation failed", error.message, statusOf(error.code));
        }
        throw error;
      }
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/emails/confirmations",
    summary: "Sends the confirmation mail again to a user whose address is not confirmed yet",
    description: "A new link; older ones stop working. 409 when already confirmed; limited per account (429 with Retry-After).",
    tags: ["accounts"],
    access: authenticated,
    allowUnconfirmedEmail: true,
    scopes: ["write:accounts"],
    response: z.object({}),
    handler: async ({ caller, services }) => {
      if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
      await services.registration.resendConfirmation(caller.accountId);
      return {};
    },
  }),
];
