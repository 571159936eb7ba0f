import type { PageRequest } from "../../domain/page.js";
import { type LoginAuditRow, insertLoginAudit, pageLoginAudit } from "./login-audit-log-store.js";
import type { ServiceDeps } from "../service-deps.js";

export type LoginAuditAction =
  | "login_method.added"
  | "login_method.removed"
  | "password.changed"
  | "password.recovered"
  | "phone.changed"
  | "passkey.added"
  | "passkey.removed";

export type LoginAuditMethod = "email" | "phone" | "password" | "passkey";

/** One audit entry as the API shows it. */
export interface LoginAuditEntry {
  readonly id: string;
  readonly accountId: string;
  readonly action: LoginAuditAction;
  readonly method: LoginAuditMethod;
  readonly detail: string | null;
  readonly ip: string | null;
  readonly createdAt: string;
}

export interface LoginAuditRecord {
  readonly accountId: string;
  readonly action: LoginAuditAction;
  readonly method: LoginAuditMethod;
  readonly detail?: string | null;
  readonly ip?: string | null;
}

/** The audit log of changes to a user's login methods and credentials, read by the user and by administrators. */
export class LoginAudit {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "clock" | "ids">) {}

  async record(entry: LoginAuditRecord): Promise<void> {
    await insertLoginAudit(this.deps.storage.db, {
      id: this.deps.ids.next("audit"),
      account_id: entry.accountId,
      action: entry.action,
      method: entry.method,
      detail: entry.detail ?? null,
      ip: entry.ip ?? null,
      created_at: this.deps.clock.now().toISOString(),
    });
  }

  async page(accountId: string, page: PageRequest): Promise<LoginAuditEntry[]> {
    return (await pageLoginAudit(this.deps.storage.db, accountId, page)).map(toEntry);
  }
}

function toEntry(row: LoginAuditRow): LoginAuditEntry {
  return {
    id: row.id,
    accountId: row.account_id,
    action: row.action as LoginAuditAction,
    method: row.method as LoginAuditMethod,
    detail: row.detail,
    ip: row.ip,
    createdAt: row.created_at,
  };
}

/** `alice@example.com` as `a***@example.com`: enough to recognise, not enough to harvest from an audit view. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf("@");
  if (at <= 0) return "***";
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** `+15551234567` as `+1*******567`. */
export function maskPhone(phone: string): string {
  if (phone.length <= 5) return "***";
  return `${phone.slice(0, 2)}${"*".repeat(phone.length - 5)}${phone.slice(-3)}`;
}
