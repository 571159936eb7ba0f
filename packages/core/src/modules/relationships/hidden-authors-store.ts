import { type Kysely, type RawBuilder, sql } from "kysely";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { Database } from "../../ports/storage-schema.js";

/**
 * A condition true when the account in `column` is not hidden from `viewerId`:
 * the viewer does not block it, is not blocked by it, does not mute it (an
 * expired mute no longer counts) and does not block its domain. Written as
 * subqueries on the relationship tables' pair indexes, so a timeline page
 * stays one query whatever the viewer has hidden.
 */
export function notHiddenFrom(
  column: string,
  viewerId: string,
  now: string,
  options: { readonly mutes: "all" | "hiding_notifications" } = { mutes: "all" },
): RawBuilder<boolean> {
  const ref = sql.ref(column);
  // A mute "without notifications" hides statuses but still lets the muted account's notifications through.
  const muteKind = options.mutes === "all" ? sql`` : sql`and hide_notifications = ${true}`;
  return sql<boolean>`(${ref} not in (select target_account_id from blocks where account_id = ${viewerId})
    and ${ref} not in (select account_id from blocks where target_account_id = ${viewerId})
    and ${ref} not in (select target_account_id from mutes where account_id = ${viewerId} and (expires_at is null or expires_at > ${now}) ${muteKind})
    and ${ref} not in (select hidden.id from accounts hidden inner join account_domain_blocks adb on adb.domain = hidden.domain where adb.account_id = ${viewerId}))`;
}

export interface HiddenAccounts {
  /** Accounts hidden by a block either way or an unexpired mute. */
  readonly accountIds: ReadonlySet<string>;
  /** Of those, the ones hidden from notifications (mutes "without notifications" let them through). */
  readonly notificationAccountIds: ReadonlySet<string>;
  /** Domains the viewer blocks: every account of them is hidden. */
  readonly domains: ReadonlySet<string>;
}

export async function hiddenAccountIds(db: Kysely<Database>, viewerId: string, now: string): Promise<HiddenAccounts> {
  const [blocking, blockedBy, mutes, domains] = await Promise.all([
    db.selectFrom("blocks").select("target_account_id as id").where("account_id", "=", viewerId).execute(),
    db.selectFrom("blocks").select("account_id as id").where("target_account_id", "=", viewerId).execute(),
    db
      .selectFrom("mutes")
      .select(["target_account_id as id", "hide_notifications"])
      .where("account_id", "=", viewerId)
      .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)]))
      .execute(),
    db.selectFrom("account_domain_blocks").select("domain").where("account_id", "=", viewerId).execute(),
  ]);
  const blocked = [...blocking, ...blockedBy].map((row) => row.id);
  const noisy = mutes.filter((row) => readFlag(row.hide_notifications)).map((row) => row.id);
  return {
    accountIds: new Set([...blocked, ...mutes.map((row) => row.id)]),
    notificationAccountIds: new Set([...blocked, ...noisy]),
    domains: new Set(domains.map((row) => row.domain)),
  };
}
