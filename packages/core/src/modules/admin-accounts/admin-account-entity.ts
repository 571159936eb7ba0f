import { z } from "zod";
import type { AdminAccountView } from "./admin-account-service.js";
import { AccountJson, RoleJson } from "../../mastodon/entities/account.js";
import { serializeLocalAccount } from "../../mastodon/serializers/account.js";

/** Mastodon's Admin::Account entity. */
export const AdminAccountJson = z.object({
  id: z.string(),
  username: z.string(),
  domain: z.string().nullable(),
  created_at: z.string(),
  email: z.string(),
  ip: z.string().nullable(),
  ips: z.array(z.object({ ip: z.string(), used_at: z.string() })),
  locale: z.string().nullable(),
  invite_request: z.string().nullable(),
  role: RoleJson.nullable(),
  confirmed: z.boolean(),
  approved: z.boolean(),
  disabled: z.boolean(),
  sensitized: z.boolean(),
  silenced: z.boolean(),
  suspended: z.boolean(),
  account: AccountJson,
  created_by_application_id: z.string().nullable(),
  invited_by_account_id: z.string().nullable(),
});

export type AdminAccountEntity = z.infer<typeof AdminAccountJson>;

export function serializeAdminAccount(view: AdminAccountView, origin: string): AdminAccountEntity {
  const { row } = view;
  const base = serializeLocalAccount(view.account, origin);
  const account =
    row.domain === null ? base : { ...base, acct: `${row.username}@${row.domain}`, url: row.url ?? base.url, uri: row.uri ?? base.uri };
  return {
    id: row.id,
    username: row.username,
    domain: row.domain,
    created_at: row.createdAt,
    email: row.user?.email ?? "",
    ip: view.ips[0]?.ip ?? null,
    ips: view.ips.map((entry) => ({ ip: entry.ip, used_at: entry.usedAt })),
    locale: row.user?.locale ?? null,
    invite_request: row.user?.reason ?? null,
    role: view.role
      ? {
          id: view.role.id,
          name: view.role.name,
          permissions: view.role.administrator ? "1" : "0",
          color: "",
          highlighted: view.role.administrator,
        }
      : null,
    confirmed: row.user?.emailConfirmed ?? false,
    approved: row.user?.approved ?? true,
    disabled: row.user?.disabled ?? false,
    sensitized: row.sensitizedAt !== null,
    silenced: row.silencedAt !== null,
    suspended: row.suspendedAt !== null,
    account,
    created_by_application_id: null,
    invited_by_account_id: null,
  };
}
