import type { Kysely } from "kysely";
import { readFlag } from "../../platform/storage/boolean-columns.js";
import type { Database } from "../../ports/storage-schema.js";

/**
 * Accounts a viewer must not see: the condition `notHiddenFrom(column,
 * viewerId, now, { mutes })` for use inside a query (a page stays one query),
 * and `hiddenAccountIds` for filtering already loaded rows (streams, small
 * lists). Both count blocks either way, unexpired mutes and the viewer's
 * domain blocks.
 */
export { notHiddenFrom } from "./hidden-authors-store.js";

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

/** Whether an account (its id and domain) is hidden from the viewer by `hidden`. */
export function isHidden(hidden: HiddenAccounts, account: { readonly id: string; readonly domain: string | null }, kind: "posts" | "notifications" = "posts"): boolean {
  const ids = kind === "posts" ? hidden.accountIds : hidden.notificationAccountIds;
  return ids.has(account.id) || (account.domain !== null && hidden.domains.has(account.domain));
}
