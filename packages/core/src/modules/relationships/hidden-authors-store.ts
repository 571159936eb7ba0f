import { type RawBuilder, sql } from "kysely";

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
