import { PUBLIC_COLLECTION } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { localAccountUrls } from "../../mastodon/serializers/account.js";
import { findAccountRows } from "../accounts/accounts-store.js";
import { findStatusesByIds, listMentionTargets } from "../federation/federation-reads-store.js";
import type { AccountRow, Database, StatusRow } from "../../ports/storage-schema.js";
import type { ActorRef } from "./status-uris.js";

export { actorUriOf, flag, statusUriOf } from "./status-uris.js";

export function followersUriOf(origin: string, username: string): string {
  return `${localAccountUrls(origin, username).uri}/followers`;
}

/**
 * Who a status is addressed to, by visibility: public to everyone (followers
 * in cc), unlisted to followers (everyone in cc), private to followers only,
 * direct to the mentioned only. Mentioned actors are always in cc (to, for direct).
 */
export function addressing(visibility: string, followers: string, mentioned: readonly string[]): { to: URL[]; cc: URL[] } {
  const mentions = mentioned.map((uri) => new URL(uri));
  switch (visibility) {
    case "public":
      return { to: [PUBLIC_COLLECTION], cc: [new URL(followers), ...mentions] };
    case "unlisted":
      return { to: [new URL(followers)], cc: [PUBLIC_COLLECTION, ...mentions] };
    case "private":
      return { to: [new URL(followers)], cc: mentions };
    default:
      return { to: mentions, cc: [] };
  }
}

/** What rendering a batch of statuses needs beside the rows: authors, reply targets, boosted and quoted statuses, mentions. */
export interface NoteContext {
  readonly accounts: ReadonlyMap<string, AccountRow>;
  readonly statuses: ReadonlyMap<string, StatusRow>;
  readonly mentions: ReadonlyMap<string, readonly ActorRef[]>;
}

/** Loads the context of a batch of statuses in a few queries (no query per status). */
export async function loadNoteContext(db: Kysely<Database>, rows: readonly StatusRow[]): Promise<NoteContext> {
  const relatedIds = [
    ...new Set(rows.flatMap((row) => [row.in_reply_to_id, row.reblog_of_id, row.quote_id]).filter((id): id is string => id !== null)),
  ];
  const related = await findStatusesByIds(db, relatedIds);
  const statuses = new Map<string, StatusRow>([...rows, ...related].map((row) => [row.id, row]));
  const mentionTargets = await listMentionTargets(db, [...statuses.keys()]);
  const accountIds = [...new Set([...statuses.values()].map((row) => row.account_id))];
  const accounts = new Map((await findAccountRows(db, accountIds)).map((row) => [row.id, row]));
  const mentions = new Map<string, ActorRef[]>();
  for (const target of mentionTargets) {
    const list = mentions.get(target.statusId) ?? [];
    list.push(target.account);
    mentions.set(target.statusId, list);
  }
  return { accounts, statuses, mentions };
}
