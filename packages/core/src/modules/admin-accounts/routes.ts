import { z } from "zod";
import type { Caller } from "../../domain/caller.js";
import { KithError } from "../../domain/errors.js";
import { any } from "../../domain/permissions.js";
import { ACCOUNT_ACTIONS, type AccountUndo, type AdminAccountFilter, type AdminActor } from "./admin-account-service.js";
import type { AccountStatus } from "./admin-accounts-store.js";
import { permission } from "../../platform/http/access.js";
import { ACCOUNTS_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { Reply } from "../../platform/http/reply.js";
import { route } from "../core-route.js";
import { zBool, zList } from "../../platform/http/schemas.js";
import { AdminAccountJson, serializeAdminAccount } from "./admin-account-entity.js";

/**
 * Administration of accounts at Mastodon's `/api/v1/admin/accounts` paths
 * and shapes (Admin::Account), plus Kith's own: creation, roles, passwords,
 * impersonation of bots. Reads need Users.Read or Users.Manage; changes
 * Users.Manage. Nobody acts on an account holding permissions they lack.
 */
const read = permission(any("Users.Read", "Users.Manage"));
const manage = permission(any("Users.Manage"));
const TAGS = ["admin/accounts"];
const READ_SCOPES = ["admin:read", "admin:read:accounts"];
const WRITE_SCOPES = ["admin:write", "admin:write:accounts"];
const BASE = "/api/v1/admin/accounts";

const IdParams = z.object({ id: z.string().min(1).max(64) });
const Text = z.string().max(200);

const V1Query = idPageQuery.extend({
  local: zBool.optional(),
  remote: zBool.optional(),
  by_domain: Text.optional(),
  active: zBool.optional(),
  pending: zBool.optional(),
  disabled: zBool.optional(),
  sensitized: zBool.optional(),
  silenced: zBool.optional(),
  suspended: zBool.optional(),
  username: Text.optional(),
  display_name: Text.optional(),
  email: Text.optional(),
  ip: Text.optional(),
  staff: zBool.optional(),
});

const V2Query = idPageQuery.extend({
  origin: z.enum(["local", "remote"]).optional(),
  status: z.enum(["active", "pending", "disabled", "silenced", "suspended"]).optional(),
  permissions: z.enum(["staff"]).optional(),
  role_ids: zList(z.string().max(64)).optional(),
  invited_by: Text.optional(),
  username: Text.optional(),
  display_name: Text.optional(),
  by_domain: Text.optional(),
  email: Text.optional(),
  ip: Text.optional(),
});

const TokenJson = z.object({ access_token: z.string(), token_type: z.literal("Bearer"), scope: z.string(), created_at: z.number().int() });

async function actorOf(caller: Caller): Promise<AdminActor> {
  if (caller.kind !== "user") throw new KithError("auth.unauthenticated");
  return { accountId: caller.accountId, grants: await caller.grants() };
}

function textFilters(query: {
  username?: string;
  display_name?: string;
  by_domain?: string;
  email?: string;
  ip?: string;
}): AdminAccountFilter {
  return {
    ...(query.username && { username: query.username }),
    ...(query.display_name && { displayName: query.display_name }),
    ...(query.by_domain && { byDomain: query.by_domain }),
    ...(query.email && { email: query.email }),
    ...(query.ip && { ip: query.ip }),
  };
}

function v1Filter(query: z.infer<typeof V1Query>): AdminAccountFilter {
  const statuses: AccountStatus[] = (["active", "pending", "disabled", "sensitized", "silenced", "suspended"] as const).filter(
    (status) => query[status] === true,
  );
  const origin = query.local ? "local" : query.remote ? "remote" : undefined;
  return { ...textFilters(query), ...(origin && { origin }), statuses, ...(query.staff && { staff: true }) };
}

function v2Filter(query: z.infer<typeof V2Query>): AdminAccountFilter {
  return {
    ...textFilters(query),
    ...(query.origin && { origin: query.origin }),
    ...(query.status && { statuses: [query.status] }),
    ...(query.permissions === "staff" && { staff: true }),
    ...(query.role_ids && { roleIds: query.role_ids }),
  };
}

function undoRoute(undo: AccountUndo, summary: string) {
  return route({
    method: "POST",
    path: `${BASE}/{id}/${undo}`,
    summary,
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminAccountJson,
    handler: async ({ services, caller, params, config }) =>
      serializeAdminAccount(await services.adminAccounts.undo(await actorOf(caller), params.id, undo), config.origin),
  });
}

const PAGE = "Newest first; `limit` (at most 80), `max_id`, `min_id`, `since_id`; the neighbouring pages in the `Link` header.";

export const adminAccountRoutes = [
  route({
    method: "GET",
    path: BASE,
    summary: "Accounts, filtered as Mastodon's v1 (local, remote, active, pending, disabled, silenced, suspended, username, email, ip...)",
    description: PAGE,
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: V1Query,
    response: z.array(AdminAccountJson),
    handler: async ({ services, query, url, config }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      const views = await services.adminAccounts.list(v1Filter(query), page);
      return pagedReply(
        url,
        views.map((view) => serializeAdminAccount(view, config.origin)),
        page.limit,
      );
    },
  }),
  route({
    method: "GET",
    path: "/api/v2/admin/accounts",
    summary: "Accounts, filtered as Mastodon's v2 (origin, status, permissions, role_ids, username, email, ip...)",
    description: PAGE,
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    query: V2Query,
    response: z.array(AdminAccountJson),
    handler: async ({ services, query, url, config }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      const views = await services.adminAccounts.list(v2Filter(query), page);
      return pagedReply(
        url,
        views.map((view) => serializeAdminAccount(view, config.origin)),
        page.limit,
      );
    },
  }),
  route({
    method: "GET",
    path: `${BASE}/{id}`,
    summary: "One account, as the Admin::Account entity",
    tags: TAGS,
    access: read,
    scopes: READ_SCOPES,
    params: IdParams,
    response: AdminAccountJson,
    handler: async ({ services, params, config }) => serializeAdminAccount(await services.adminAccounts.get(params.id), config.origin),
  }),
  route({
    method: "POST",
    path: BASE,
    summary: "Creates a local account (Kith's own); a generated password is returned as `password`",
    description: "The role (a global role's name or id, default User) may not hold permissions the caller lacks (403).",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    body: z.object({
      username: z.string().max(30),
      email: z.string().max(320),
      password: z.string().max(200).optional(),
      role: z.string().max(100).optional(),
      confirmed: zBool.optional(),
    }),
    response: AdminAccountJson.extend({ password: z.string().optional() }),
    handler: async ({ services, caller, body, config }) => {
      const { view, generatedPassword } = await services.adminAccounts.create(await actorOf(caller), {
        username: body.username,
        email: body.email,
        ...(body.password !== undefined && { password: body.password }),
        ...(body.role !== undefined && { role: body.role }),
        ...(body.confirmed !== undefined && { confirmed: body.confirmed }),
      });
      const json = serializeAdminAccount(view, config.origin);
      return Reply.json(generatedPassword === null ? json : { ...json, password: generatedPassword }, { status: 201 });
    },
  }),
  route({
    method: "DELETE",
    path: `${BASE}/{id}`,
    summary: "Removes a suspended account (409 for one not suspended)",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminAccountJson,
    handler: async ({ services, caller, params, config }) =>
      serializeAdminAccount(await services.adminAccounts.delete(await actorOf(caller), params.id), config.origin),
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/action`,
    summary: "Mastodon's moderation action: none, sensitive, disable, silence or suspend",
    description:
      "A disabled or suspended account cannot sign in, and its tokens stop working at once. With `report_id` (a report about the account, " +
      "else 404 report.not_found), the report is resolved once the action is taken.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    body: z.object({
      type: z.enum(ACCOUNT_ACTIONS),
      text: z.string().max(5000).optional(),
      report_id: z.string().max(64).optional(),
      warning_preset_id: z.string().max(64).optional(),
      send_email_notification: zBool.optional(),
    }),
    response: z.object({}),
    handler: async ({ services, caller, params, body }) => {
      await services.adminAccounts.act(await actorOf(caller), params.id, body.type, {
        text: body.text || null,
        ...(body.report_id && { reportId: body.report_id }),
      });
      return {};
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/approve`,
    summary: "Approves a pending account (409 when not pending)",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminAccountJson,
    handler: async ({ services, caller, params, config }) =>
      serializeAdminAccount(await services.adminAccounts.approve(params.id, (await actorOf(caller)).accountId), config.origin),
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/reject`,
    summary: "Rejects a pending account, which is removed (409 when not pending)",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: AdminAccountJson,
    handler: async ({ services, caller, params, config }) =>
      serializeAdminAccount(await services.adminAccounts.reject(params.id, (await actorOf(caller)).accountId), config.origin),
  }),
  undoRoute("enable", "Re-enables a disabled account"),
  undoRoute("unsilence", "Lifts a silence (limit)"),
  undoRoute("unsuspend", "Lifts a suspension"),
  undoRoute("unsensitive", "Lifts the sensitive mark"),
  route({
    method: "PUT",
    path: `${BASE}/{id}/role`,
    summary: "Sets the account's global role, by `roleId` or by `role` name",
    description: "403 when the role holds permissions the caller lacks; 409 when the server's last Owner would lose the role.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    body: z.object({ roleId: z.string().max(64).optional(), role: z.string().max(100).optional() }),
    response: AdminAccountJson,
    handler: async ({ services, caller, params, body, config }) => {
      const ref = body.roleId ?? body.role;
      if (!ref)
        throw new KithError("request.invalid_parameters", { details: [{ field: "roleId", message: "roleId or role is required" }] });
      return serializeAdminAccount(await services.adminAccounts.setRole(await actorOf(caller), params.id, ref), config.origin);
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/password`,
    summary: "Sets the account's password, or generates one and returns it; every session of the account ends",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    body: z.object({ password: z.string().max(200).optional() }),
    response: z.object({ password: z.string().optional(), sessions_revoked: z.number().int() }),
    handler: async ({ services, caller, params, body }) => {
      const result = await services.adminAccounts.setPassword(await actorOf(caller), params.id, body.password);
      return { ...(result.password !== null && { password: result.password }), sessions_revoked: result.sessionsRevoked };
    },
  }),
  route({
    method: "POST",
    path: `${BASE}/{id}/impersonate`,
    summary: "Issues a token acting as a bot (Service) account; other accounts: 409",
    description: "The token is a session of the bot whose user agent reads `impersonated by <administrator's id>`.",
    tags: TAGS,
    access: manage,
    scopes: WRITE_SCOPES,
    params: IdParams,
    response: TokenJson,
    handler: async ({ services, caller, params }) => {
      const session = await services.adminAccounts.impersonate(await actorOf(caller), params.id);
      return {
        access_token: session.accessToken,
        token_type: "Bearer" as const,
        scope: session.scopes.join(" "),
        created_at: Math.floor(new Date(session.createdAt).getTime() / 1000),
      };
    },
  }),
];
