import { Emoji, Image, Link } from "@fedify/fedify/vocab";
import type { Kysely } from "kysely";
import { MAX_SHORTCODE_LENGTH, SHORTCODE_PATTERN } from "../../mastodon/serializers/custom-emoji.js";
import type { ServiceDeps } from "../service-deps.js";
import { type RemoteEmoji, upsertRemoteEmojis } from "./custom-emoji-lookups-store.js";
import type { Database } from "../../ports/storage-schema.js";
import { embeddedOnly, isoOrNull } from "../federation/embedded-values.js";
import { httpUrlOrNull } from "../federation/remote-actor-fields.js";

/** More emojis than this in one object are not kept: a status or a profile has a few. */
const MAX_EMOJIS_PER_OBJECT = 64;

/** The image an Emoji tag names: its embedded icon's URL. */
async function emojiImageUrl(tag: Emoji): Promise<string | null> {
  if (tag.iconId !== null) return null;
  // Every server that sends emojis embeds the icon; one given only by its URL is passed over.
  const icon = await tag.getIcon({ documentLoader: embeddedOnly, contextLoader: embeddedOnly }).catch(() => null);
  if (!(icon instanceof Image)) return null;
  const url = icon.url instanceof URL ? icon.url : icon.url instanceof Link ? icon.url.href : null;
  return httpUrlOrNull(url?.href);
}

/**
 * The custom emojis among an object's tags (Mastodon's `Emoji`: `:name:`
 * and an icon), as emojis of `domain`, the server of the actor that sent
 * them: each with a valid shortcode and an http(s) image, the first of a
 * shortcode kept.
 */
export async function remoteEmojisOf(tags: readonly unknown[], domain: string): Promise<RemoteEmoji[]> {
  const found = new Map<string, RemoteEmoji>();
  for (const tag of tags) {
    if (!(tag instanceof Emoji) || found.size >= MAX_EMOJIS_PER_OBJECT) continue;
    const shortcode = String(tag.name ?? "").replace(/^:|:$/g, "");
    if (!SHORTCODE_PATTERN.test(shortcode) || shortcode.length > MAX_SHORTCODE_LENGTH || found.has(shortcode)) continue;
    const imageUrl = await emojiImageUrl(tag);
    if (!imageUrl) continue;
    found.set(shortcode, { shortcode, domain, uri: httpUrlOrNull(tag.id?.href), imageUrl, updatedAt: isoOrNull(tag.updated) });
  }
  return [...found.values()];
}

/** Records the emojis (new ones added, changed images taken); their ids by shortcode. */
export async function rememberRemoteEmojis(
  db: Kysely<Database>,
  deps: Pick<ServiceDeps, "ids" | "clock">,
  emojis: readonly RemoteEmoji[],
): Promise<Map<string, string>> {
  if (emojis.length === 0) return new Map();
  return upsertRemoteEmojis(db, emojis, () => deps.ids.next("emoji"), deps.clock.now().toISOString());
}
