import { z } from "zod";
import type { Caller, UserCaller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { any } from "../../domain/permissions.js";
import type { LoginAuditEntry } from "./login-audit.js";
import { authenticated, permission } from "../../platform/http/access.js";
import { CodeSentJson, LoginAuditEntryJson, LoginMethodJson } from "../../mastodon/entities/credentials.js";
import { idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";

/**
 * Login methods (the spec lists the area without paths; these are Kith's
 * own, camelCase like the spec's fields): the email address with a password,
 * and a phone number. Adding one is two steps (a code to the new identifier,
 * then verify); removing the last one is refused with 409. Every change is in
 * an audit log the user reads here and administrators (Users.Read or
 * Users.Manage) read under the admin accounts.
 */
const TAGS = ["login methods"];
const BASE = "/api/v1/accounts/login_methods";
const Code = z.string().trim().min(1).max(64);
const MethodType = z.enum(["email", "phone"]);
const READ = ["read", "read:accounts"];
const WRITE = ["write", "write:accounts"];

function userOf(caller: Caller): UserCaller {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return caller;
}

const serializeAudit = (entry: LoginAuditEntry): z.infer<typeof LoginAuditEntryJson> => ({ ...entry });

export const loginMethodRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "The caller's login methods: the email address (with a password) and the phone number, where set up",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    response: z.array(LoginMethodJson),
    handler: async ({ caller, services }) => services.loginMethods.list(userOf(caller).accountId),
  }),
  route({
    method: "POST",
    path: `${BASE}/email`,
    summary: "Starts adding sign-in by email and password: mails a code to the address",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ email: z.string().max(320), password: z.string().max(1_000) }),
    response: CodeSentJson,
    handler: async ({ caller, body, services }) => {
      const sent = await services.loginMethods.startAddEmail(userOf(caller).accountId, body.email, body.password);
      return { sent: true as const, sentTo: sent.sentTo, expiresAt: sent.expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/email/verify`,
    summary: "Finishes adding sign-in by email and password with the mailed code",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ code: Code }),
    response: z.array(LoginMethodJson),
    handler: async ({ caller, body, services, clientIp }) =>
      services.loginMethods.verifyAddEmail(userOf(caller).accountId, body.code, clientIp),
  }),
  route({
    method: "POST",
    path: `${BASE}/phone`,
    summary: "Starts adding a phone number (international format, normalised to E.164): texts a code to it",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ phone: z.string().max(64) }),
    response: CodeSentJson,
    handler: async ({ caller, body, services }) => {
      const sent = await services.loginMethods.startAddPhone(userOf(caller).accountId, body.phone);
      return { sent: true as const, sentTo: sent.sentTo, expiresAt: sent.expiresAt };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/phone/verify`,
    summary: "Finishes adding a phone number with the texted code",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    body: z.object({ code: Code }),
    response: z.array(LoginMethodJson),
    handler: async ({ caller, body, services, clientIp }) =>
      services.loginMethods.verifyAddPhone(userOf(caller).accountId, body.code, clientIp),
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{type}`,
    summary: "Removes a login method (email: the password goes; phone: the number goes); the last one left is refused with 409",
    tags: TAGS,
    access: authenticated,
    scopes: WRITE,
    params: z.object({ type: MethodType }),
    response: z.array(LoginMethodJson),
    handler: async ({ caller, params, services, clientIp }) =>
      services.loginMethods.remove(userOf(caller).accountId, params.type, clientIp),
  }),
  route({
    method: "GET",
    path: `${BASE}/audit`,
    summary: "The caller's login audit log, newest first: methods added and removed, password, phone and passkey changes",
    tags: TAGS,
    access: authenticated,
    scopes: READ,
    query: idPageQuery,
    response: z.array(LoginAuditEntryJson),
    handler: async ({ caller, query, services, url }) => {
      const page = pageRequest(query);
      const entries = await services.loginAudit.page(userOf(caller).accountId, page);
      return pagedReply(url, entries, page.limit, entries.map(serializeAudit));
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/accounts/{id}/login_audit",
    summary: "An account's login audit log, newest first, for administrators",
    tags: ["admin/accounts"],
    access: permission(any("Users.Read", "Users.Manage")),
    scopes: ["admin:read", "admin:read:accounts"],
    params: z.object({ id: z.string().min(1).max(64) }),
    query: idPageQuery,
    response: z.array(LoginAuditEntryJson),
    handler: async ({ params, query, services, url }) => {
      await services.accounts.findById(params.id);
      const page = pageRequest(query);
      const entries = await services.loginAudit.page(params.id, page);
      return pagedReply(url, entries, page.limit, entries.map(serializeAudit));
    },
  }),
];
