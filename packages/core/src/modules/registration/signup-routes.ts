import { z } from "zod";
import type { LocalAccount } from "../../domain/accounts.js";
import { any } from "../../domain/permissions.js";
import type { SignupRow } from "./signup-service.js";
import { permission } from "../../platform/http/access.js";
import { AccountJson } from "../../mastodon/entities/account.js";
import { ACCOUNTS_PAGE, idPageQuery, pageRequest, pagedReply } from "../../platform/http/pagination.js";
import { route } from "../core-route.js";
import { serializeLocalAccount } from "../../mastodon/serializers/account.js";

/**
 * A signup request, in the shape of Mastodon's Admin::Account (the paths are
 * not Mastodon's nor the spec's, so the Mastodon family's snake_case holds):
 * `invite_request` is the reason given at sign-up.
 */
const SignupJson = z.object({
  id: z.string(),
  username: z.string(),
  domain: z.null(),
  created_at: z.string(),
  email: z.string(),
  ip: z.null(),
  ips: z.array(z.never()),
  locale: z.string().nullable(),
  invite_request: z.string().nullable(),
  confirmed: z.boolean(),
  approved: z.boolean(),
  disabled: z.boolean(),
  silenced: z.boolean(),
  suspended: z.boolean(),
  account: AccountJson,
});

type SignupEntity = z.infer<typeof SignupJson>;

function serialize(signup: SignupRow, account: LocalAccount, origin: string): SignupEntity {
  return {
    id: signup.accountId,
    username: signup.username,
    domain: null,
    created_at: signup.createdAt,
    email: signup.email,
    ip: null,
    ips: [],
    locale: signup.locale,
    invite_request: signup.reason,
    confirmed: signup.emailConfirmed,
    approved: signup.approved,
    disabled: signup.disabled,
    silenced: account.silenced,
    suspended: account.suspended,
    account: serializeLocalAccount(account, origin),
  };
}

const AccountIdParams = z.object({ accountId: z.string().min(1).max(64) });
const read = permission(any("Signups.Read", "Signups.Manage"));
const manage = permission(any("Signups.Manage"));

export const signupRoutes = [
  route({
    method: "GET",
    path: "/api/v1/admin/signups",
    summary: "Accounts awaiting approval (approval mode), newest first",
    tags: ["admin/signups"],
    access: read,
    scopes: ["admin:read"],
    query: idPageQuery,
    response: z.array(SignupJson),
    handler: async ({ query, services, config, url }) => {
      const page = pageRequest(query, ACCOUNTS_PAGE);
      const signups = await services.signups.listPending(page);
      const items = await Promise.all(
        signups.map(async (signup) => serialize(signup, await services.accounts.findById(signup.accountId), config.origin)),
      );
      return pagedReply(url, items, page.limit);
    },
  }),
  route({
    method: "GET",
    path: "/api/v1/admin/signups/{accountId}",
    summary: "One account awaiting approval (404 when it is not pending)",
    tags: ["admin/signups"],
    access: read,
    scopes: ["admin:read"],
    params: AccountIdParams,
    response: SignupJson,
    handler: async ({ params, services, config }) => {
      const signup = await services.signups.get(params.accountId);
      return serialize(signup, await services.accounts.findById(signup.accountId), config.origin);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/signups/{accountId}/approve",
    summary: "Approves a pending account: it can sign in, and is told by mail (409 when not pending)",
    tags: ["admin/signups"],
    access: manage,
    scopes: ["admin:write"],
    params: AccountIdParams,
    response: SignupJson,
    handler: async ({ params, services, config }) => {
      const signup = await services.signups.approve(params.accountId);
      return serialize(signup, await services.accounts.findById(signup.accountId), config.origin);
    },
  }),
  route({
    method: "POST",
    path: "/api/v1/admin/signups/{accountId}/reject",
    summary: "Rejects a pending account: the account and its user are removed, and the person is told by mail (409 when not pending)",
    tags: ["admin/signups"],
    access: manage,
    scopes: ["admin:write"],
    params: AccountIdParams,
    response: SignupJson,
    handler: async ({ params, services, config }) => {
      const account = await services.accounts.findById(params.accountId).catch(() => null);
      const signup = await services.signups.reject(params.accountId);
      if (!account) return serialize(signup, await services.accounts.findById(params.accountId), config.origin);
      return serialize(signup, account, config.origin);
    },
  }),
];
