import type { Selectable } from "kysely";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { CustomEmojiEntity } from "../../mastodon/entities/custom-emoji.js";
import type { JsonTexts } from "../../platform/http/json-text.js";
import { defaultAvatarUrl, defaultHeaderUrl, localAccountUrls, noFeatureApproval } from "../../mastodon/serializers/account.js";
import {
  ACCOUNT_COUNTERS,
  type AccountCounter,
  type AccountVersionRow,
  findAccountRows,
  findAccountVersions,
} from "./accounts-store.js";
import { type AccountsTable, toBool } from "../../ports/storage-schema.js";
import type { ServiceDeps } from "../service-deps.js";
import { EmojiRenderer } from "../emojis/emoji-renderer.js";
import { KeptRows } from "../../platform/cache/kept-rows.js";
import { RenderMemo } from "../../platform/cache/render-memo.js";
import { type ProfileField, parseProfileFields } from "./profile-fields.js";

export type AccountRow = Selectable<AccountsTable>;

/** Accounts whose entity and JSON text are kept (about 2 KB each); the least recently used go first. */
export const ACCOUNT_TEXT_MEMO_SIZE = 5_000;

/** An account as rendered: its entity (shared by every render of the same inputs, so frozen) and the entity's JSON text. */
interface AccountView {
  readonly entity: AccountEntity;
  readonly text: string;
}

type ImageUrls = ReadonlyMap<string, { url: string; previewUrl: string }>;

/** Where processed media is served; the media service provides it. */
export interface MediaUrls {
  publicUrls(ids: readonly string[]): Promise<Map<string, { url: string; previewUrl: string }>>;
}

/**
 * Renders accounts, local or remote, as Mastodon's Account entity, many at
 * once in a fixed number of queries: the accounts, the accounts they moved to
 * and the avatars and headers of both. Every part that shows an account
 * (statuses, notifications, search, relationships) goes through here, so an
 * account looks the same wherever it appears.
 */
export class AccountViews {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config" | "blob">,
    private readonly media: MediaUrls,
  ) {
    this.#emojiRenderer = new EmojiRenderer(deps);
  }

  readonly #emojiRenderer: EmojiRenderer;

  /** The custom emojis of each account's profile texts, found again only when those texts differ. */
  readonly #emojis = new RenderMemo<readonly CustomEmojiEntity[]>(ACCOUNT_TEXT_MEMO_SIZE);

  /** The accounts' rows, read again whole only when their version differs. */
  readonly #rows = new KeptRows<AccountRow, AccountCounter>(ACCOUNT_TEXT_MEMO_SIZE, ACCOUNT_COUNTERS);

  /** Each account's entity and text, made again when its row, images or the account it moved to differ. */
  readonly #views = new RenderMemo<AccountView>(ACCOUNT_TEXT_MEMO_SIZE);

  /** With `texts`, the JSON text of each account returned is put there too. */
  async render(ids: readonly string[], texts?: JsonTexts): Promise<Map<string, AccountEntity>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    return this.renderLoaded(await this.#read(unique), texts);
  }

  /** Renders accounts whose versions and counters were just read, reading whole only the rows not kept at them. */
  async renderVersions(versions: readonly AccountVersionRow[], texts?: JsonTexts): Promise<Map<string, AccountEntity>> {
    if (versions.length === 0) return new Map();
    return this.renderLoaded(await this.#current(versions), texts);
  }

  /** Renders accounts whose rows were just read or written, as `render` would after reading them. */
  async renderLoaded(rows: readonly AccountRow[], texts?: JsonTexts): Promise<Map<string, AccountEntity>> {
    const unique = rows.map((row) => row.id);
    const movedIds = rows.map((row) => row.moved_to_account_id).filter((id): id is string => id !== null && !unique.includes(id));
    const movedRows = movedIds.length > 0 ? await this.#read(movedIds) : [];
    const byId = new Map([...rows, ...movedRows].map((row) => [row.id, row]));
    const mediaIds = [...byId.values()]
      .flatMap((row) => [row.avatar_media_id, row.header_media_id])
      .filter((id): id is string => id !== null);
    const urls: ImageUrls = mediaIds.length > 0 ? await this.media.publicUrls(mediaIds) : new Map();
    const emojis = await this.#emojisOf([...byId.values()]);
    const result = new Map<string, AccountEntity>();
    for (const row of rows) {
      const target = row.moved_to_account_id ? byId.get(row.moved_to_account_id) : undefined;
      const moved = target ? this.#view(target, urls, emojis, null) : null;
      const { entity, text } = this.#view(row, urls, emojis, moved);
      result.set(row.id, entity);
      texts?.set(entity, text);
    }
    return result;
  }

  /** One account, or null when there is none with this id. */
  async renderOne(id: string): Promise<AccountEntity | null> {
    return (await this.render([id])).get(id) ?? null;
  }

  /** Renders rows already loaded (the avatars and headers still cost one query). */
  async renderRows(rows: readonly AccountRow[]): Promise<Map<string, AccountEntity>> {
    return this.render(rows.map((row) => row.id));
  }

  /** The emojis of each account's name, note and fields: kept ones, and one statement for the others that name any. */
  async #emojisOf(rows: readonly AccountRow[]): Promise<Map<string, readonly CustomEmojiEntity[]>> {
    const result = new Map<string, readonly CustomEmojiEntity[]>();
    const missing: { row: AccountRow; texts: string[] }[] = [];
    for (const row of rows) {
      const texts = [row.display_name, row.note, row.fields];
      const kept = this.#emojis.get(row.id, texts);
      if (kept) result.set(row.id, kept);
      else missing.push({ row, texts });
    }
    if (missing.length === 0) return result;
    const rendered = await this.#emojiRenderer.render(
      missing.map(({ row }) => ({
        key: row.id,
        domain: row.domain,
        texts: [row.display_name, row.note, ...parseProfileFields(row.fields).flatMap((field) => [field.name, field.value])],
      })),
    );
    for (const { row, texts } of missing) {
      const emojis = rendered.get(row.id) ?? [];
      this.#emojis.set(row.id, texts, emojis);
      result.set(row.id, emojis);
    }
    return result;
  }

  async #read(ids: readonly string[]): Promise<AccountRow[]> {
    return this.#current(await findAccountVersions(this.deps.storage.db, ids));
  }

  #current(versions: readonly AccountVersionRow[]): Promise<AccountRow[]> {
    return this.#rows.rows(versions, (unkept) => findAccountRows(this.deps.storage.db, unkept));
  }

  /**
   * The account's entity and text, kept from an earlier render when its row, images and moved-to account are the same:
   * a page of statuses names the same authors request after request, and building an entity cost more than comparing.
   */
  #view(row: AccountRow, urls: ImageUrls, emojisBy: ReadonlyMap<string, readonly CustomEmojiEntity[]>, moved: AccountView | null): AccountView {
    const avatar = imageUrl(urls, row.avatar_media_id, row.avatar_remote_url);
    const header = imageUrl(urls, row.header_media_id, row.header_remote_url);
    const emojis = emojisBy.get(row.id) ?? NO_EMOJIS;
    const inputs: unknown[] = Object.values(row);
    inputs.push(avatar, header, emojis, moved === null ? null : moved.text);
    return this.#views.getOrMake(row.id, inputs, () => {
      const entity = deepFreeze(this.renderRow(row, { avatar, header }, emojis, moved?.entity ?? null));
      return { entity, text: JSON.stringify(entity) };
    });
  }

  private renderRow(
    row: AccountRow,
    images: { avatar: string | null; header: string | null },
    emojis: readonly CustomEmojiEntity[],
    moved: AccountEntity | null,
  ): AccountEntity {
    const origin = this.deps.config.origin;
    const local = row.domain === null;
    const { url, uri } = local ? localAccountUrls(origin, row.username) : { url: row.url ?? row.uri ?? "", uri: row.uri ?? "" };
    const suspended = row.suspended_at !== null;
    const avatar = (!suspended && images.avatar) || defaultAvatarUrl(origin);
    const header = (!suspended && images.header) || defaultHeaderUrl(origin);
    const indexable = toBool(row.indexable);
    const discoverable = toBool(row.discoverable);
    const base = {
      id: row.id,
      username: row.username,
      acct: local ? row.username : `${row.username}@${row.domain}`,
      url,
      uri,
      avatar,
      avatar_static: avatar,
      header,
      header_static: header,
      emojis: suspended ? [] : emojis.map((emoji) => ({ ...emoji })),
      suspended,
      limited: row.silenced_at !== null,
      memorial: false,
      created_at: row.created_at,
      roles: [],
      feature_approval: noFeatureApproval(),
    };
    // Mastodon shows a suspended account as an empty shell: no profile, no counts, nothing it moved to.
    if (suspended) {
      return {
        ...base,
        display_name: "",
        note: "",
        locked: false,
        fields: [],
        bot: false,
        group: false,
        discoverable: false,
        indexable: false,
        noindex: true,
        hide_collections: null,
        moved: null,
        last_status_at: null,
        statuses_count: 0,
        followers_count: 0,
        following_count: 0,
      };
    }
    return {
      ...base,
      display_name: row.display_name,
      note: row.note,
      locked: toBool(row.locked),
      fields: parseProfileFields(row.fields).map(publicField),
      bot: row.actor_type === "Service" || row.actor_type === "Application",
      group: row.actor_type === "Group",
      discoverable,
      indexable,
      noindex: local ? !indexable : null,
      hide_collections: toBool(row.hide_collections as unknown as boolean | number),
      moved,
      last_status_at: row.last_status_at ? row.last_status_at.slice(0, 10) : null,
      statuses_count: row.statuses_count,
      followers_count: row.followers_count,
      following_count: row.following_count,
    };
  }
}

const NO_EMOJIS: readonly CustomEmojiEntity[] = [];

/** Freezes the entity and what it holds: one object serves every render of the same inputs, so none may change it. */
function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value)) if (typeof inner === "object" && inner !== null && !Object.isFrozen(inner)) deepFreeze(inner);
  return Object.freeze(value);
}

function imageUrl(urls: ImageUrls, mediaId: string | null, remoteUrl: string | null): string | null {
  return (mediaId ? urls.get(mediaId)?.url : undefined) ?? remoteUrl;
}

function publicField(field: ProfileField): { name: string; value: string; verified_at: string | null } {
  return { name: field.name, value: field.value, verified_at: field.verified_at };
}
