import type { ServiceDeps } from "../service-deps.js";
import { listLocalCustomEmojis } from "./custom-emojis-store.js";

/** Mastodon's CustomEmoji entity. */
export interface CustomEmojiEntity {
  readonly shortcode: string;
  readonly url: string;
  readonly static_url: string;
  readonly visible_in_picker: boolean;
  readonly category: string | null;
}

/** Renders stored attachments to the URLs they are served at. */
export interface EmojiImageUrls {
  render(mediaIds: readonly string[]): Promise<Map<string, { readonly url: string | null; readonly preview_url?: string | null }>>;
}

/** This server's custom emojis, as clients load them on start. */
export class CustomEmojiService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly images: EmojiImageUrls,
  ) {}

  /** Enabled local emojis whose image can be fetched; one without a served image is left out rather than sent broken. */
  async list(): Promise<CustomEmojiEntity[]> {
    const emojis = await listLocalCustomEmojis(this.deps.storage.db);
    const media = await this.images.render(emojis.flatMap((emoji) => (emoji.imageMediaId ? [emoji.imageMediaId] : [])));
    return emojis.flatMap((emoji) => {
      const attachment = emoji.imageMediaId ? media.get(emoji.imageMediaId) : undefined;
      const url = attachment?.url ?? emoji.imageRemoteUrl;
      if (!url) return [];
      return [
        {
          shortcode: emoji.shortcode,
          url,
          static_url: attachment?.preview_url ?? url,
          visible_in_picker: emoji.visibleInPicker,
          category: emoji.category,
        },
      ];
    });
  }
}
