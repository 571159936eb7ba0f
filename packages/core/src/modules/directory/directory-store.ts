import { type Kysely, type SqlBool, sql } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

export interface DirectoryQuery {
  readonly order: "active" | "new";
  readonly localOnly: boolean;
  readonly offset: number;
  readonly limit: number;
  /** The signed-in viewer: accounts they block or mute, or that block them, are left out. */
  readonly viewerId: string | null;
}

/**
 * The ids of the accounts the profile directory lists: those that asked to
 * be discoverable, neither suspended, limited nor moved, local ones only
 * once approved and not disabled, and no group's own account (a group is
 * listed in the group directory, by its own visibility rules).
 */
export async function directoryPage(db: Kysely<Database>, query: DirectoryQuery): Promise<string[]> {
  let select = db
    .selectFrom("accounts as a")
    .leftJoin("users as u", "u.account_id", "a.id")
    .select("a.id")
    .where(sql<SqlBool>`a.discoverable = ${sql.lit(true)}`)
    .where("a.suspended_at", "is", null)
    .where("a.silenced_at", "is", null)
    .where("a.moved_to_account_id", "is", null)
    .where(sql<SqlBool>`(a.domain is not null or (u.account_id is not null and u.approved = ${sql.lit(true)} and u.disabled_at is null))`)
    .where((eb) => eb.or([eb("a.domain", "is not", null), eb("a.actor_type", "!=", "Group")]));
  if (query.localOnly) select = select.where("a.domain", "is", null);
  const viewerId = query.viewerId;
  if (viewerId !== null) {
    select = select
      .where("a.id", "not in", (eb) => eb.selectFrom("blocks").select("target_account_id").where("account_id", "=", viewerId))
      .where("a.id", "not in", (eb) => eb.selectFrom("blocks").select("account_id").where("target_account_id", "=", viewerId))
      .where("a.id", "not in", (eb) => eb.selectFrom("mutes").select("target_account_id").where("account_id", "=", viewerId));
  }
  select =
    query.order === "new"
      ? select.orderBy("a.created_at", "desc").orderBy("a.id", "desc")
      : // Who posted last first; those who never posted at the end, newest accounts first among them.
        select.orderBy(sql`a.last_status_at is null`).orderBy("a.last_status_at", "desc").orderBy("a.id", "desc");
  const rows = await select.offset(query.offset).limit(query.limit).execute();
  return rows.map((row) => row.id);
}
