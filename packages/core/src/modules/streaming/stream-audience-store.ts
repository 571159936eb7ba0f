import type { Kysely } from "kysely";
import { readInSlices } from "../../platform/storage/id-slices.js";
import type { Database } from "../../ports/storage-schema.js";

/**
 * Of `authorIds`, those whose statuses a viewer does not want streamed: blocked
 * either way, muted (unexpired), or on a domain the viewer blocked.
 */
export async function hiddenAuthorIds(
  db: Kysely<Database>,
  viewerId: string,
  authorIds: readonly string[],
  now: string,
): Promise<Set<string>> {
  return (await hiddenAuthorsOfViewers(db, [viewerId], authorIds, now)).get(viewerId) ?? new Set();
}

/** `hiddenAuthorIds` for many viewers in one statement: each viewer's hidden authors (viewers hiding none are absent). */
export async function hiddenAuthorsOfViewers(
  db: Kysely<Database>,
  viewerIds: readonly string[],
  authorIds: readonly string[],
  now: string,
): Promise<Map<string, Set<string>>> {
  const viewers = [...new Set(viewerIds)];
  const authors = [...new Set(authorIds)];
  if (viewers.length === 0 || authors.length === 0) return new Map();
  const rows = await db
    .selectFrom("blocks")
    .select(["account_id as viewer", "target_account_id as author"])
    .where("account_id", "in", viewers)
    .where("target_account_id", "in", authors)
    .unionAll(
      db
        .selectFrom("blocks")
        .select(["target_account_id as viewer", "account_id as author"])
        .where("target_account_id", "in", viewers)
        .where("account_id", "in", authors),
    )
    .unionAll(
      db
        .selectFrom("mutes")
        .select(["account_id as viewer", "target_account_id as author"])
        .where("account_id", "in", viewers)
        .where("target_account_id", "in", authors)
        .where((eb) => eb.or([eb("expires_at", "is", null), eb("expires_at", ">", now)])),
    )
    .unionAll(
      db
        .selectFrom("accounts")
        .innerJoin("account_domain_blocks", "account_domain_blocks.domain", "accounts.domain")
        .select(["account_domain_blocks.account_id as viewer", "accounts.id as author"])
        .where("account_domain_blocks.account_id", "in", viewers)
        .where("accounts.id", "in", authors),
    )
    .execute();
  const hidden = new Map<string, Set<string>>();
  for (const row of rows) {
    // One's own statuses are never hidden from oneself.
    if (row.viewer === row.author) continue;
    const set = hidden.get(row.viewer) ?? new Set<string>();
    set.add(row.author);
    hidden.set(row.viewer, set);
  }
  return hidden;
}

/**
 * Of `viewerIds`, those who did something to the status that shows in its
 * rendering for them: favourited, boosted, bookmarked or pinned it, or muted
 * its conversation. One statement for up to 500 viewers (id-slices.ts), one
 * per slice of them beyond (the statement names the list five times).
 */
export async function viewersWithMarks(db: Kysely<Database>, statusId: string, viewerIds: readonly string[]): Promise<Set<string>> {
  const ids = [...new Set(viewerIds)];
  if (ids.length === 0) return new Set();
  const rows = await readInSlices(ids, (slice) =>
    db
      .selectFrom("favourites")
      .select("account_id")
      .where("status_id", "=", statusId)
      .where("account_id", "in", slice)
      .unionAll(db.selectFrom("statuses").select("account_id").where("reblog_of_id", "=", statusId).where("account_id", "in", slice))
      .unionAll(db.selectFrom("bookmarks").select("account_id").where("status_id", "=", statusId).where("account_id", "in", slice))
      .unionAll(db.selectFrom("status_pins").select("account_id").where("status_id", "=", statusId).where("account_id", "in", slice))
      .unionAll(
        db
          .selectFrom("conversation_mutes")
          .select("account_id")
          .where("account_id", "in", slice)
          .where("conversation_id", "=", (eb) => eb.selectFrom("statuses").select("conversation_id").where("id", "=", statusId)),
      )
      .execute(),
  );
  return new Set(rows.map((row) => row.account_id));
}

/** Whether the list belongs to the account. */
export async function ownsList(db: Kysely<Database>, accountId: string, listId: string): Promise<boolean> {
  const row = await db.selectFrom("lists").select("id").where("id", "=", listId).where("account_id", "=", accountId).executeTakeFirst();
  return row !== undefined;
}

/** What the public and hashtag streams need of a status: its visibility, whether it is a boost, its tags' names. */
export async function publicStreamFacts(
  db: Kysely<Database>,
  statusId: string,
): Promise<{ visibility: string; reblogOfId: string | null; tagNames: string[] } | null> {
  const status = await db.selectFrom("statuses").select(["visibility", "reblog_of_id"]).where("id", "=", statusId).executeTakeFirst();
  if (!status) return null;
  const tags = await db
    .selectFrom("status_tags")
    .innerJoin("tags", "tags.id", "status_tags.tag_id")
    .select("tags.name")
    .where("status_tags.status_id", "=", statusId)
    .execute();
  return { visibility: status.visibility, reblogOfId: status.reblog_of_id, tagNames: tags.map((tag) => tag.name) };
}
