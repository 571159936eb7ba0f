import { localAccountUrls } from "../../mastodon/serializers/account.js";
import { localStatusUrls } from "../../mastodon/serializers/status.js";
import type { AccountRow, StatusRow } from "../../ports/storage-schema.js";

// The ids of accounts and statuses as ActivityPub names them, apart from notes.ts: what a service needs of them
// without loading the federation's vocabulary (and Fedify with it) at start.

/** A boolean column as read from either engine (true/false or 1/0). */
export function flag(value: unknown): boolean {
  return value === true || value === 1;
}

/** What names an account: enough to derive a local one's id. */
export type ActorRef = Pick<AccountRow, "username" | "domain" | "uri">;

/** The ActivityPub id of an account: derived from the origin for local ones, stored for remote ones. */
export function actorUriOf(origin: string, account: ActorRef): string | null {
  return account.domain === null ? localAccountUrls(origin, account.username).uri : account.uri;
}

/** The ActivityPub id of a status: derived for local statuses, stored for remote ones. */
export function statusUriOf(origin: string, status: Pick<StatusRow, "id" | "uri" | "local">, author: ActorRef): string | null {
  return flag(status.local) || status.uri === null ? localStatusUrls(origin, author.username, status.id).uri : status.uri;
}
