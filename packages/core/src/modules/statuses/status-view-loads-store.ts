import type { Kysely } from "kysely";
import { compiledOnce } from "../../platform/storage/compiled-once.js";
import type { Database, PollRow, StatusRow } from "../../ports/storage-schema.js";

/**
 * The batched reads behind rendering statuses: each takes every id at once, so
 * rendering a page costs the same number of queries however long it is.
 */

/** The rows of the statuses among `ids` that exist, whoever may see them. */
export async function loadStatusRows(db: Kysely<Database>, ids: readonly string[]): Promise<StatusRow[]> {
  if (ids.length === 0) return [];
  return selectStatusRows(db, { ids });
}

const selectStatusRows = compiledOnce((db, args: { ids: readonly string[] }) =>
  db.selectFrom("statuses").selectAll("statuses").where("statuses.id", "in", args.ids),
);

export interface MentionedAccountRow {
  readonly status_id: string;
  readonly account_id: string;
  readonly username: string;
  readonly domain: string | null;
  readonly url: string | null;
}

export async function loadMentions(db: Kysely<Database>, statusIds: readonly string[]): Promise<MentionedAccountRow[]> {
  if (statusIds.length === 0) return [];
  return db
    .selectFrom("mentions")
    .innerJoin("accounts", "accounts.id", "mentions.account_id")
    .select(["mentions.status_id", "mentions.account_id", "accounts.username", "accounts.domain", "accounts.url"])
    .where("mentions.status_id", "in", statusIds)
    .orderBy("mentions.created_at")
    .execute();
}

export interface StatusTagRow {
  readonly status_id: string;
  readonly name: string;
  readonly display_name: string;
}

export async function loadStatusTags(db: Kysely<Database>, statusIds: readonly string[]): Promise<StatusTagRow[]> {
  if (statusIds.length === 0) return [];
  return db
    .selectFrom("status_tags")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .select(["status_tags.status_id", "tags.name", "tags.display_name"])
    .where("status_tags.status_id", "in", statusIds)
    .execute();
}

export async function loadPolls(db: Kysely<Database>, statusIds: readonly string[]): Promise<PollRow[]> {
  if (statusIds.length === 0) return [];
  return db.selectFrom("polls").selectAll().where("status_id", "in", statusIds).execute();
}

export async function loadOwnVotes(
  db: Kysely<Database>,
  pollIds: readonly string[],
  accountId: string,
): Promise<{ poll_id: string; choice: number }[]> {
  if (pollIds.length === 0) return [];
  return db
    .selectFrom("poll_votes")
    .select(["poll_id", "choice"])
    .where("poll_id", "in", pollIds)
    .where("account_id", "=", accountId)
    .orderBy("choice")
    .execute();
}

export async function loadApplications(
  db: Kysely<Database>,
  appIds: readonly string[],
): Promise<{ id: string; name: string; website: string | null }[]> {
  if (appIds.length === 0) return [];
  return db.selectFrom("oauth_apps").select(["id", "name", "website"]).where("id", "in", appIds).execute();
}
