import type { Kysely, Selectable } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import type { Database, LoginAuditLogTable } from "../../ports/storage-schema.js";

export type LoginAuditRow = Selectable<LoginAuditLogTable>;

export async function insertLoginAudit(db: Kysely<Database>, row: LoginAuditRow): Promise<void> {
  await db.insertInto("login_audit_log").values(row).execute();
}

/** One page of an account's audit entries, newest first. */
export async function pageLoginAudit(db: Kysely<Database>, accountId: string, page: PageRequest): Promise<LoginAuditRow[]> {
  return fetchIdPage(db.selectFrom("login_audit_log").selectAll().where("account_id", "=", accountId), "id", page);
}
