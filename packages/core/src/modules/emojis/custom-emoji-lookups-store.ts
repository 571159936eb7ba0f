import type { Kysely } from "kysely";
import { writeFlag } from "../../platform/storage/boolean-columns.js";
import type { CustomEmojiRow, Database } from "../../ports/storage-schema.js";

/**
 * The enabled emojis of these shortcodes, of this server (`null`) and of
 * the given domains: what statuses, profiles and reactions name. One
 * statement; none when nothing is asked.
 */
export async function findEnabledEmojis(
  db: Kysely<Database>,
  domains: readonly (string | null)[],
  shortcodes: readonly string[],
): Promise<CustomEmojiRow[]> {
  if (shortcodes.length === 0 || domains.length === 0) return [];
  const remote = [...new Set(domains.filter((domain): domain is string => domain !== null))];
  const local = domains.includes(null);
  return db
    .selectFrom("custom_emojis")
    .selectAll()
    .where("shortcode", "in", [...new Set(shortcodes)])
    .where("disabled", "=", writeFlag(false))
    .where((eb) => {
      const kinds = [];
      if (local) kinds.push(eb("domain", "is", null));
      if (remote.length > 0) kinds.push(eb("domain", "in", remote));
      return eb.or(kinds);
    })
    .execute();
}

/** An emoji another server named in what it sent (a status's, a profile's or a reaction's `Emoji` tag). */
export interface RemoteEmoji {
  readonly shortcode: string;
  readonly domain: string;
  readonly uri: string | null;
  readonly imageUrl: string;
  readonly updatedAt: string | null;
}

/**
 * Records the emojis another server uses, one row per shortcode and
 * domain: a new one is added, a known one takes the image it now names
 * (servers change an emoji's image under the same shortcode), a disabled
 * one stays disabled. Returns the rows' ids by shortcode.
 */
export async function upsertRemoteEmojis(
  db: Kysely<Database>,
  emojis: readonly RemoteEmoji[],
  newId: () => string,
  now: string,
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  for (const emoji of emojis) {
    const existing = await db
      .selectFrom("custom_emojis")
      .select(["id", "image_remote_url", "uri"])
      .where("shortcode", "=", emoji.shortcode)
      .where("domain", "=", emoji.domain)
      .executeTakeFirst();
    if (existing) {
      if (existing.image_remote_url !== emoji.imageUrl || existing.uri !== emoji.uri) {
        await db
          .updateTable("custom_emojis")
          .set({ image_remote_url: emoji.imageUrl, uri: emoji.uri, updated_at: emoji.updatedAt ?? now })
          .where("id", "=", existing.id)
          .execute();
      }
      ids.set(emoji.shortcode, existing.id);
      continue;
    }
    const id = newId();
    const inserted = await db
      .insertInto("custom_emojis")
      .values({
        id,
        shortcode: emoji.shortcode,
        domain: emoji.domain,
        image_remote_url: emoji.imageUrl,
        uri: emoji.uri,
        created_at: now,
        updated_at: emoji.updatedAt ?? now,
      })
      .onConflict((oc) => oc.columns(["shortcode", "domain"]).doNothing())
      .returning("id")
      .executeTakeFirst();
    if (inserted) ids.set(emoji.shortcode, inserted.id);
    else {
      // Recorded by another activity a moment ago.
      const raced = await db
        .selectFrom("custom_emojis")
        .select("id")
        .where("shortcode", "=", emoji.shortcode)
        .where("domain", "=", emoji.domain)
        .executeTakeFirst();
      if (raced) ids.set(emoji.shortcode, raced.id);
    }
  }
  return ids;
}
