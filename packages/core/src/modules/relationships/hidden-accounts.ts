import type { HiddenAccounts } from "./hidden-authors-store.js";

/**
 * Accounts a viewer must not see: the condition `notHiddenFrom(column,
 * viewerId, now, { mutes })` for use inside a query (a page stays one query),
 * and `hiddenAccountIds` for filtering already loaded rows (streams, small
 * lists). Both count blocks either way, unexpired mutes and the viewer's
 * domain blocks.
 */
export { type HiddenAccounts, hiddenAccountIds, notHiddenFrom } from "./hidden-authors-store.js";

/** Whether an account (its id and domain) is hidden from the viewer by `hidden`. */
export function isHidden(
  hidden: HiddenAccounts,
  account: { readonly id: string; readonly domain: string | null },
  kind: "posts" | "notifications" = "posts",
): boolean {
  const ids = kind === "posts" ? hidden.accountIds : hidden.notificationAccountIds;
  return ids.has(account.id) || (account.domain !== null && hidden.domains.has(account.domain));
}
