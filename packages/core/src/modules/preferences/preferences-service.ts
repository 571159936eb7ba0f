import { KithError } from "../../domain/errors.js";
import { toBool } from "../../ports/storage-schema.js";
import type { PreferencesStore } from "./preferences-store.js";

/** Mastodon's Preferences entity: the user's posting defaults and reading preferences, keyed as Mastodon keys them. */
export interface PreferencesEntity {
  readonly "posting:default:visibility": "public" | "unlisted" | "private" | "direct";
  readonly "posting:default:sensitive": boolean;
  readonly "posting:default:language": string | null;
  readonly "posting:default:quote_policy": "public" | "followers" | "nobody";
  readonly "reading:expand:media": "default" | "show_all" | "hide_all";
  readonly "reading:expand:spoilers": boolean;
  readonly "reading:autoplay:gifs": boolean;
}

const VISIBILITIES = new Set(["public", "unlisted", "private", "direct"]);
const EXPAND_MEDIA = new Set(["default", "show_all", "hide_all"]);

/** The preferences clients read on start (`GET /api/v1/preferences`), from the user's row. */
export class PreferencesService {
  constructor(private readonly store: PreferencesStore) {}

  async get(accountId: string): Promise<PreferencesEntity> {
    const row = await this.store.find(accountId);
    if (!row) throw new KithError("account.not_found");
    return {
      "posting:default:visibility": (VISIBILITIES.has(row.default_visibility)
        ? row.default_visibility
        : "public") as PreferencesEntity["posting:default:visibility"],
      "posting:default:sensitive": toBool(row.default_sensitive as unknown as boolean | number),
      "posting:default:language": row.default_language,
      // A new status anyone may quote unless its author says otherwise (`quote_approval_policy`), as Mastodon's default.
      "posting:default:quote_policy": "public",
      "reading:expand:media": (EXPAND_MEDIA.has(row.expand_media)
        ? row.expand_media
        : "default") as PreferencesEntity["reading:expand:media"],
      "reading:expand:spoilers": toBool(row.expand_spoilers as unknown as boolean | number),
      "reading:autoplay:gifs": false,
    };
  }
}
