import type { CustomEmojiEntity } from "../../mastodon/entities/custom-emoji.js";
import { serializeCustomEmoji, shortcodesIn } from "../../mastodon/serializers/custom-emoji.js";
import { findEnabledEmojis } from "./custom-emoji-lookups-store.js";
import type { ServiceDeps } from "../service-deps.js";

/** Texts whose emojis are wanted: a status's or a profile's, of an author of `domain` (null for this server). */
export interface EmojiTexts {
  readonly key: string;
  readonly domain: string | null;
  readonly texts: readonly (string | null | undefined)[];
}

/**
 * The custom emojis texts name, as Mastodon's `emojis` arrays give them:
 * each `:shortcode:` of a text matched against the enabled emojis of its
 * author's server (this server's for local authors), as Mastodon does.
 * One statement for any number of texts, and none when no text has a
 * shortcode, which is most of them.
 */
export class EmojiRenderer {
  constructor(private readonly deps: Pick<ServiceDeps, "storage" | "config" | "blob">) {}

  async render(requests: readonly EmojiTexts[]): Promise<Map<string, CustomEmojiEntity[]>> {
    const result = new Map<string, CustomEmojiEntity[]>();
    const wanted = requests.map((request) => ({ request, shortcodes: shortcodesIn(request.texts) }));
    const asked = wanted.filter((entry) => entry.shortcodes.length > 0);
    for (const { request } of wanted) result.set(request.key, []);
    if (asked.length === 0) return result;
    const rows = await findEnabledEmojis(
      this.deps.storage.db,
      asked.map((entry) => entry.request.domain),
      asked.flatMap((entry) => entry.shortcodes),
    );
    const byDomain = new Map<string, CustomEmojiEntity>();
    for (const row of rows) {
      const entity = serializeCustomEmoji(row, this.deps.config.origin, this.deps.blob);
      if (entity) byDomain.set(`${row.domain ?? ""} ${row.shortcode}`, entity);
    }
    for (const { request, shortcodes } of asked) {
      result.set(
        request.key,
        shortcodes.flatMap((shortcode) => byDomain.get(`${request.domain ?? ""} ${shortcode}`) ?? []),
      );
    }
    return result;
  }

  /** The emojis of one set of texts. */
  async renderOne(domain: string | null, texts: readonly (string | null | undefined)[]): Promise<CustomEmojiEntity[]> {
    return (await this.render([{ key: "", domain, texts }])).get("") ?? [];
  }
}
