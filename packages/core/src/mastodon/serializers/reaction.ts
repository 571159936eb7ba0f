import type { BlobStore } from "../../ports/blob.js";
import type { ReactionEntity } from "../entities/reaction.js";
import { customEmojiUrls } from "./custom-emoji.js";

/** A stored reaction, with its custom emoji's image columns when it is one. */
export interface ReactionInput {
  readonly name: string;
  readonly emoji_id: string | null;
  readonly image_key: string | null;
  readonly static_key: string | null;
  readonly image_remote_url: string | null;
}

/** One status's reactions as Mastodon's Reaction entities: one per emoji, in the order each was first used. */
export function serializeReactions(
  rows: readonly ReactionInput[],
  origin: string,
  blob: Pick<BlobStore, "publicUrl">,
): ReactionEntity[] {
  const byName = new Map<string, ReactionEntity>();
  for (const row of rows) {
    const kept = byName.get(row.name);
    if (kept) {
      byName.set(row.name, { ...kept, count: kept.count + 1 });
      continue;
    }
    const urls =
      row.emoji_id === null
        ? null
        : customEmojiUrls(
            { id: row.emoji_id, image_key: row.image_key, static_key: row.static_key, image_remote_url: row.image_remote_url },
            origin,
            blob,
          );
    byName.set(row.name, { name: row.name, count: 1, me: false, ...(urls && { url: urls.url, static_url: urls.staticUrl }) });
  }
  return [...byName.values()];
}
