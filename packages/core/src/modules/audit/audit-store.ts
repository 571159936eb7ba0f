import { type Kysely, sql } from "kysely";
import type { PageRequest } from "../../domain/page.js";
import { fetchIdPage } from "../../platform/storage/paginate-by-id.js";
import type { Database } from "../../ports/storage-schema.js";

export interface AuditRow {
  readonly id: string;
  readonly actor_id: string | null;
  readonly action: string;
  readonly resource: string;
  readonly target_type: string;
  readonly target_id: string;
  readonly scope: string | null;
  readonly text: string | null;
  readonly created_at: string;
}

/** The module's table, as Kysely sees it. */
type AuditTables = { audit_log: AuditRow };

/** What a reader asks of the log: one scope, the resources it may read, and optional filters. */
export interface AuditFilter {
  /** Null: the server's scope; else a group's id. */
  readonly scope: string | null;
  /** Rows of other resources are left out; none at all reads nothing. */
  readonly resources: readonly string[];
  /** An action, or the start of one up to a dot: `account` finds `account.suspend`. */
  readonly action?: string;
  readonly actorId?: string;
  readonly targetType?: string;
  readonly targetId?: string;
}

/** The core's schema type knows the core's tables; the module adds its own, on any connection (a transaction's too). */
function auditDb(db: Kysely<Database>): Kysely<AuditTables> {
  return db.withTables<AuditTables>() as unknown as Kysely<AuditTables>;
}

export async function insertAuditRow(db: Kysely<Database>, row: AuditRow): Promise<void> {
  await auditDb(db).insertInto("audit_log").values(row).execute();
}

/** One page of the log, newest first. */
export async function pageAuditRows(db: Kysely<Database>, filter: AuditFilter, page: PageRequest): Promise<AuditRow[]> {
  if (filter.resources.length === 0) return [];
  let query = auditDb(db)
    .selectFrom("audit_log")
    .selectAll()
    .where("resource", "in", [...filter.resources]);
  query = filter.scope === null ? query.where("scope", "is", null) : query.where("scope", "=", filter.scope);
  if (filter.action !== undefined) {
    const prefix = `${filter.action}.`;
    // A comparison of the leading characters, not LIKE: `_` in a verb would be a wildcard there.
    query = query.where((eb) =>
      eb.or([eb("action", "=", filter.action as string), eb(sql`substr(action, 1, ${sql.lit(prefix.length)})`, "=", prefix)]),
    );
  }
  if (filter.actorId !== undefined) query = query.where("actor_id", "=", filter.actorId);
  if (filter.targetType !== undefined) query = query.where("target_type", "=", filter.targetType);
  if (filter.targetId !== undefined) query = query.where("target_id", "=", filter.targetId);
  return fetchIdPage(query, "id", page);
}
