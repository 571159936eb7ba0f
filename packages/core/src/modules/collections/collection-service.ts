import { KithError } from "../../domain/errors.js";
import type { AccountEntity } from "../../mastodon/entities/account.js";
import type { AccountViews } from "../accounts/index.js";
import type { TagService } from "../tags/index.js";
import type { ServiceDeps } from "../service-deps.js";
import { collectionErrors, collectionIds } from "./collection-ids.js";
import type { CollectionChange, CollectionItemRow, CollectionRow, CollectionsStore } from "./collections-store.js";

/** At most this many accounts in one collection. */
export const MAX_COLLECTION_ITEMS = 25;

export interface CollectionItemEntity {
  readonly id: string;
  readonly account_id: string;
  /** Kith asks no consent of the accounts added, so every item is accepted. */
  readonly state: "accepted";
  readonly created_at: string;
}

/** Mastodon's Collection entity. */
export interface CollectionEntity {
  readonly id: string;
  readonly account_id: string;
  readonly uri: string;
  readonly url: string | null;
  readonly name: string;
  readonly description: string;
  readonly language: string | null;
  readonly local: boolean;
  readonly sensitive: boolean;
  readonly discoverable: boolean;
  readonly tag: { readonly name: string; readonly url: string } | null;
  readonly created_at: string;
  readonly updated_at: string;
  readonly item_count: number;
  readonly items: CollectionItemEntity[];
}

export interface CollectionInput {
  readonly name: string;
  readonly description?: string | null | undefined;
  readonly language?: string | null | undefined;
  readonly tagName?: string | null | undefined;
  readonly sensitive?: boolean | null | undefined;
  readonly discoverable?: boolean | null | undefined;
}

/**
 * Curated collections of accounts (Mastodon's Collections): an account
 * gathers others it recommends, under a name, a description and a hashtag.
 * Discoverable ones are listed on the owner's profile; any can be fetched by
 * id by whoever the owner does not block.
 */
export class CollectionService {
  constructor(
    private readonly deps: ServiceDeps,
    private readonly store: CollectionsStore,
    private readonly tags: TagService,
    private readonly accountViews: AccountViews,
  ) {}

  async create(ownerId: string, input: CollectionInput, accountIds: readonly string[]): Promise<CollectionEntity> {
    const unique = [...new Set(accountIds)];
    if (unique.length > MAX_COLLECTION_ITEMS) throw new KithError(collectionErrors["collection.full"]);
    for (const accountId of unique) await this.#assertAddable(ownerId, accountId);
    const now = this.#now();
    const tag = input.tagName ? await this.tags.ensure(input.tagName) : null;
    const row: CollectionRow = {
      id: this.deps.ids.next(collectionIds.accountCollection),
      account_id: ownerId,
      name: input.name,
      description: input.description ?? "",
      language: input.language ?? null,
      tag_id: tag?.id ?? null,
      sensitive: input.sensitive ?? false,
      discoverable: input.discoverable ?? true,
      created_at: now,
      updated_at: now,
    };
    const items = unique.map((accountId) => ({
      id: this.deps.ids.next(collectionIds.accountCollectionItem),
      collection_id: row.id,
      account_id: accountId,
      created_at: now,
    }));
    await this.store.insert(row, items);
    return this.#one(row.id);
  }

  /** A collection with the accounts of its owner and items, as `GET /api/v1/collections/{id}` answers. */
  async show(viewerId: string | null, id: string): Promise<{ collection: CollectionEntity; accounts: AccountEntity[] }> {
    const row = await this.#visible(viewerId, id);
    const [collection] = await this.#render([row]);
    if (!collection) throw new KithError(collectionErrors["collection.not_found"]);
    const ids = [row.account_id, ...collection.items.map((item) => item.account_id)];
    const rendered = await this.accountViews.render(ids);
    return { collection, accounts: ids.flatMap((accountId) => rendered.get(accountId) ?? []) };
  }

  async update(ownerId: string, id: string, input: Partial<CollectionInput>): Promise<CollectionEntity> {
    await this.#owned(ownerId, id);
    let tagId: string | null | undefined;
    if (input.tagName !== undefined) tagId = input.tagName ? (await this.tags.ensure(input.tagName)).id : null;
    const change: CollectionChange = {
      updated_at: this.#now(),
      ...(input.name !== undefined && input.name !== null && { name: input.name }),
      ...(input.description !== undefined && { description: input.description ?? "" }),
      ...(input.language !== undefined && { language: input.language }),
      ...(tagId !== undefined && { tag_id: tagId }),
      ...(input.sensitive !== undefined && input.sensitive !== null && { sensitive: input.sensitive }),
      ...(input.discoverable !== undefined && input.discoverable !== null && { discoverable: input.discoverable }),
    };
    await this.store.update(id, change);
    return this.#one(id);
  }

  async delete(ownerId: string, id: string): Promise<void> {
    await this.#owned(ownerId, id);
    await this.store.delete(id);
  }

  async addItem(ownerId: string, id: string, accountId: string): Promise<CollectionItemEntity> {
    await this.#owned(ownerId, id);
    await this.#assertAddable(ownerId, accountId);
    if (await this.store.hasItem(id, accountId)) throw new KithError(collectionErrors["collection.already_added"]);
    const item: CollectionItemRow = {
      id: this.deps.ids.next(collectionIds.accountCollectionItem),
      collection_id: id,
      account_id: accountId,
      created_at: this.#now(),
    };
    if (!(await this.store.insertItemWithin(item, MAX_COLLECTION_ITEMS))) {
      if (await this.store.hasItem(id, accountId)) throw new KithError(collectionErrors["collection.already_added"]);
      throw new KithError(collectionErrors["collection.full"]);
    }
    await this.store.update(id, { updated_at: item.created_at });
    return itemEntity(item);
  }

  async removeItem(ownerId: string, id: string, itemId: string): Promise<void> {
    await this.#owned(ownerId, id);
    const item = await this.store.findItem(id, itemId);
    if (!item) throw new KithError(collectionErrors["collection.item_not_found"]);
    await this.store.deleteItem(item.id);
    await this.store.update(id, { updated_at: this.#now() });
  }

  /** An account takes itself out of someone else's collection. */
  async revoke(accountId: string, id: string, itemId: string): Promise<void> {
    const item = await this.store.findItem(id, itemId);
    if (!item || item.account_id !== accountId) throw new KithError(collectionErrors["collection.item_not_found"]);
    await this.store.deleteItem(item.id);
  }

  /** An account's collections: the discoverable ones, and to the owner all of them. */
  async ofAccount(viewerId: string | null, accountId: string, page: { offset: number; limit: number }): Promise<CollectionEntity[]> {
    const account = await this.store.activeAccount(accountId, viewerId);
    if (!account) throw new KithError("account.not_found");
    if (account.blocksViewer) return [];
    return this.#render(await this.store.ofAccount(accountId, { ...page, withUndiscoverable: viewerId === accountId }));
  }

  /**
   * The discoverable collections an account is in: what its owners show on
   * their profiles anyway, so anyone signed in may ask about any account.
   */
  async including(viewerId: string, accountId: string, page: { offset: number; limit: number }): Promise<CollectionEntity[]> {
    const account = await this.store.activeAccount(accountId, viewerId);
    if (!account) throw new KithError("account.not_found");
    return this.#render(await this.store.including(accountId, page));
  }

  async #assertAddable(ownerId: string, accountId: string): Promise<void> {
    if (accountId === ownerId) throw new KithError(collectionErrors["collection.account_refused"]);
    const account = await this.store.activeAccount(accountId, ownerId);
    if (!account) throw new KithError(collectionErrors["collection.account_refused"], { message: "No such account to add" });
    if (account.blocksViewer) throw new KithError(collectionErrors["collection.account_refused"]);
  }

  /** A collection the viewer may see: its owner active and not blocking them. */
  async #visible(viewerId: string | null, id: string): Promise<CollectionRow> {
    const row = await this.store.find(id);
    if (!row) throw new KithError(collectionErrors["collection.not_found"]);
    const owner = await this.store.activeAccount(row.account_id, viewerId);
    if (!owner || owner.blocksViewer) throw new KithError(collectionErrors["collection.not_found"]);
    return row;
  }

  /** A collection the caller may change: 404 when they may not see it, 403 when it is someone else's. */
  async #owned(ownerId: string, id: string): Promise<CollectionRow> {
    const row = await this.#visible(ownerId, id);
    if (row.account_id !== ownerId) throw new KithError(collectionErrors["collection.not_owner"]);
    return row;
  }

  async #one(id: string): Promise<CollectionEntity> {
    const row = await this.store.find(id);
    const [collection] = row ? await this.#render([row]) : [];
    if (!collection) throw new KithError(collectionErrors["collection.not_found"]);
    return collection;
  }

  async #render(rows: readonly CollectionRow[]): Promise<CollectionEntity[]> {
    const [items, tagNames] = await Promise.all([
      this.store.items(rows.map((row) => row.id)),
      this.store.tagNames(rows.flatMap((row) => (row.tag_id ? [row.tag_id] : []))),
    ]);
    const origin = this.deps.config.origin;
    return rows.map((row) => {
      const own = items.filter((item) => item.collection_id === row.id).map(itemEntity);
      const tagName = row.tag_id ? tagNames.get(row.tag_id) : undefined;
      return {
        id: row.id,
        account_id: row.account_id,
        uri: `${origin}/collections/${row.id}`,
        url: null,
        name: row.name,
        description: row.description,
        language: row.language,
        local: true,
        sensitive: row.sensitive,
        discoverable: row.discoverable,
        tag: tagName ? { name: tagName, url: `${origin}/tags/${encodeURIComponent(tagName.toLowerCase())}` } : null,
        created_at: row.created_at,
        updated_at: row.updated_at,
        item_count: own.length,
        items: own,
      };
    });
  }

  #now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function itemEntity(item: CollectionItemRow): CollectionItemEntity {
  return { id: item.id, account_id: item.account_id, state: "accepted", created_at: item.created_at };
}
