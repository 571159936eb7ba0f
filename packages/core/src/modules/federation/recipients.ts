import type { Recipient } from "@fedify/fedify/vocab";
import type { AccountRow } from "../../ports/storage-schema.js";

/** A stored remote account as a delivery target: its inbox, and its server's shared inbox. */
export function recipientOf(account: Pick<AccountRow, "uri" | "inbox_url" | "shared_inbox_url">): Recipient {
  return {
    id: account.uri ? new URL(account.uri) : null,
    inboxId: account.inbox_url ? new URL(account.inbox_url) : null,
    endpoints: account.shared_inbox_url ? { sharedInbox: new URL(account.shared_inbox_url) } : null,
  };
}
