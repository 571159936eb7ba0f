import { lowestIdAt } from "../../domain/ids.js";
import type { TagHistoryEntity } from "../../mastodon/entities/tag.js";
import { recentTagUses, type TagUse } from "./tags-store.js";
import type { Kysely } from "kysely";
import type { Database } from "../../ports/storage-schema.js";

const DAY_MS = 86_400_000;

/** Midnight UTC of the day holding `ms`. */
export function dayStart(ms: number): number {
  return ms - (ms % DAY_MS);
}

/**
 * Mastodon's tag history: one entry per day, today first, with how many
 * public statuses used the tag and how many distinct accounts wrote them.
 */
export function historyFromUses(uses: readonly TagUse[], now: Date, days: number): TagHistoryEntity[] {
  const today = dayStart(now.getTime());
  const buckets = Array.from({ length: days }, (_, i) => ({ day: today - i * DAY_MS, uses: 0, accounts: new Set<string>() }));
  for (const use of uses) {
    const index = Math.floor((today - dayStart(Date.parse(use.createdAt))) / DAY_MS);
    const bucket = buckets[index];
    if (!bucket) continue;
    bucket.uses += 1;
    bucket.accounts.add(use.accountId);
  }
  return buckets.map((b) => ({ day: String(b.day / 1000), uses: String(b.uses), accounts: String(b.accounts.size) }));
}

/** The histories of several tags, in one query. */
export async function tagHistories(
  db: Kysely<Database>,
  tagIds: readonly string[],
  now: Date,
  days = 7,
): Promise<Map<string, TagHistoryEntity[]>> {
  const since = lowestIdAt("status", dayStart(now.getTime()) - (days - 1) * DAY_MS);
  const uses = await recentTagUses(db, tagIds, since);
  const byTag = new Map<string, TagUse[]>();
  for (const use of uses) byTag.set(use.tagId, [...(byTag.get(use.tagId) ?? []), use]);
  return new Map(tagIds.map((id) => [id, historyFromUses(byTag.get(id) ?? [], now, days)]));
}
