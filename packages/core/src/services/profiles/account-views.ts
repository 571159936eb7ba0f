import type { Selectable } from "kysely";
import type { AccountEntity } from "../../api/entities/account.js";
import type { JsonTexts } from "../../api/json-text.js";
import { defaultAvatarUrl, defaultHeaderUrl, localAccountUrls, noFeatureApproval } from "../../api/serializers/account.js";
import { findAccountRows } from "../../storage/repositories/accounts.js";
import { type AccountsTable, toBool } from "../../storage/schema.js";
import type { ServiceDeps } from "../deps.js";
import { RenderMemo } from "../render-memo.js";
import { type ProfileField, parseProfileFields } from "./profile-fields.js";

export type AccountRow = Selectable<AccountsTable>;

/** Accounts whose JSON text is kept (about 1 KB each); the least recently used go first. */
export const ACCOUNT_TEXT_MEMO_SIZE = 5_000;

/** Where processed media is served; the media service provides it. */
export interface MediaUrls {
  publicUrls(ids: readonly string[]): Promise<Map<string, { url: string; previewUrl: string }>>;
}

/**
 * Renders accounts, local or remote, as Mastodon's Account entity, many at
 * once in a fixed number of queries: the accounts, the accounts they moved to
 * and the avatars and headers of both. Every part that shows an account
 * (posts, notifications, search, relationships) goes through here, so an
 * account looks the same wherever it appears.
 */
export class AccountViews {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "config">,
    private readonly media: MediaUrls,
  ) {}

  /** Each account's JSON text, made again when its row, images or the account it moved to differ. */
  readonly #texts = new RenderMemo<string>(ACCOUNT_TEXT_MEMO_SIZE);

  /** With `texts`, the JSON text of each account returned is put there too. */
  async render(ids: readonly string[], texts?: JsonTexts): Promise<Map<string, AccountEntity>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    return this.renderLoaded(await this.#rows(unique), texts);
  }

  /** Renders accounts whose rows were just read or written, as `render` would after reading them. */
  async renderLoaded(rows: readonly AccountRow[], texts?: JsonTexts): Promise<Map<string, AccountEntity>> {
    const unique = rows.map((row) => row.id);
    const movedIds = rows.map((row) => row.moved_to_account_id).filter((id): id is string => id !== null && !unique.includes(id));
    const movedRows = movedIds.length > 0 ? await this.#rows(movedIds) : [];
    const byId = new Map([...rows, ...movedRows].map((row) => [row.id, row]));
    const mediaIds = [...byId.values()]
      .flatMap((row) => [row.avatar_media_id, row.header_media_id])
      .filter((id): id is string => id !== null);
    const urls = mediaIds.length > 0 ? await this.media.publicUrls(mediaIds) : new Map<string, { url: string; previewUrl: string }>();
    const result = new Map<string, AccountEntity>();
    for (const row of rows) {
      const target = row.moved_to_account_id ? byId.get(row.moved_to_account_id) : undefined;
      const moved = target ? this.renderRow(target, urls, null) : null;
      const entity = this.renderRow(row, urls, moved);
      result.set(row.id, entity);
      if (texts) texts.set(entity, this.#text(row, entity, moved));
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

  async #rows(ids: readonly string[]): Promise<AccountRow[]> {
    return findAccountRows(this.deps.storage.db, ids);
  }

  /** The entity's JSON text, kept from an earlier render when its row, images and moved-to account are the same. */
  #text(row: AccountRow, entity: AccountEntity, moved: AccountEntity | null): string {
    const inputs: unknown[] = Object.values(row);
    inputs.push(entity.avatar, entity.header, moved === null ? null : JSON.stringify(moved));
    return this.#texts.getOrMake(row.id, inputs, () => JSON.stringify(entity));
  }

  private renderRow(
    row: AccountRow,
    urls: ReadonlyMap<string, { url: string; previewUrl: string }>,
    moved: AccountEntity | null,
  ): AccountEntity {
    const origin = this.deps.config.origin;
    const local = row.domain === null;
    const { url, uri } = local ? localAccountUrls(origin, row.username) : { url: row.url ?? row.uri ?? "", uri: row.uri ?? "" };
    const suspended = row.suspended_at !== null;
    const avatar = (!suspended && imageUrl(urls, row.avatar_media_id, row.avatar_remote_url)) || defaultAvatarUrl(origin);
    const header = (!suspended && imageUrl(urls, row.header_media_id, row.header_remote_url)) || defaultHeaderUrl(origin);
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
      emojis: [],
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

function imageUrl(urls: ReadonlyMap<string, { url: string }>, mediaId: string | null, remoteUrl: string | null): string | null {
  return (mediaId ? urls.get(mediaId)?.url : undefined) ?? remoteUrl;
}

function publicField(field: ProfileField): { name: string; value: string; verified_at: string | null } {
  return { name: field.name, value: field.value, verified_at: field.verified_at };
}
