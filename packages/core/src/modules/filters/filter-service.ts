import { KithError } from "../../domain/errors.js";
import type { FilterAction, FilterContext, FilterKeywordRecord, FilterRecord, FilterStatusRecord } from "../../domain/filters.js";
import {
  deleteFilter,
  deleteFilterKeyword,
  deleteFilterStatus,
  findFilter,
  findKeywordOwner,
  findStatusFilterOwner,
  insertFilter,
  insertFilterKeyword,
  insertFilterStatus,
  listFilters,
  statusExists,
  updateFilter,
  updateFilterKeyword,
} from "./filters-store.js";
import { AnnouncedCache } from "../../platform/cache/announced-cache.js";
import type { ServiceDeps } from "../service-deps.js";
import { streamChannels } from "../streaming/channels.js";
import { createFilterMatcher, type FilterMatcher } from "./filter-matcher.js";

/** The pubsub channel on which any process names an account whose filters changed. */
export const FILTERS_CHANGED_CHANNEL = "kith:filters-changed";

export type { FilterMatcher } from "./filter-matcher.js";

export interface KeywordInput {
  readonly keyword: string;
  readonly wholeWord?: boolean;
}

/** One item of `keywords_attributes[]`: a new keyword (no id), a change, or a removal (`_destroy`). */
export interface KeywordAttributes {
  readonly id?: string;
  readonly keyword?: string;
  readonly wholeWord?: boolean;
  readonly destroy?: boolean;
}

export interface CreateFilterInput {
  readonly title: string;
  readonly context: readonly FilterContext[];
  readonly action?: FilterAction;
  /** Seconds from now; null or absent for a filter that does not expire. */
  readonly expiresIn?: number | null;
  readonly keywords?: readonly KeywordInput[];
}

export interface UpdateFilterInput {
  readonly title?: string;
  readonly context?: readonly FilterContext[];
  readonly action?: FilterAction;
  /** Seconds from now; null makes the filter permanent; absent leaves it. */
  readonly expiresIn?: number | null;
  readonly keywords?: readonly KeywordAttributes[];
}

/** A keyword as v1 sees it: a filter of its own, with its filter's context, expiry and action. */
export interface V1FilterInput {
  readonly phrase: string;
  readonly context: readonly FilterContext[];
  readonly irreversible?: boolean;
  readonly wholeWord?: boolean;
  readonly expiresIn?: number | null;
}

/**
 * Content filters (Mastodon's v2 filters, and v1 over the same data): an
 * account's keywords and statuses that hide or warn about statuses in the contexts
 * it chose. Every change is announced on the owner's stream as
 * `filters_changed`, so open clients reload them.
 */
export class FilterService {
  /**
   * Each reader's filters, kept between the pages it reads: every timeline
   * page would otherwise read them. Forgotten in every process when the
   * reader changes them; expired filters are left out when used, not when kept.
   */
  readonly #kept: AnnouncedCache<readonly FilterRecord[]>;

  constructor(private readonly deps: ServiceDeps) {
    this.#kept = new AnnouncedCache(deps.pubsub, deps.clock, { channel: FILTERS_CHANGED_CHANNEL, ttlMs: 60_000, capacity: 10_000 });
  }

  /** The matcher of a viewer's active (unexpired) filters of one context, for timelines, threads, notifications and streams. */
  async forViewer(accountId: string, context: FilterContext): Promise<FilterMatcher> {
    const now = this.deps.clock.now().toISOString();
    const all = await this.#kept.through(accountId, () => listFilters(this.deps.storage.db, accountId));
    const filters = all.filter((filter) => filter.context.includes(context) && (filter.expiresAt === null || filter.expiresAt > now));
    return createFilterMatcher(filters);
  }

  list(accountId: string): Promise<FilterRecord[]> {
    return listFilters(this.deps.storage.db, accountId);
  }

  async get(accountId: string, filterId: string): Promise<FilterRecord> {
    const filter = await findFilter(this.deps.storage.db, accountId, filterId);
    if (!filter) throw new KithError("filter.not_found");
    return filter;
  }

  async create(accountId: string, input: CreateFilterInput): Promise<FilterRecord> {
    const id = this.deps.ids.next("filter");
    const now = this.deps.clock.now().toISOString();
    await this.deps.storage.transaction(async (trx) => {
      await insertFilter(trx, {
        id,
        accountId,
        title: input.title,
        context: unique(input.context),
        action: input.action ?? "warn",
        expiresAt: this.expiresAt(input.expiresIn),
        now,
      });
      for (const keyword of input.keywords ?? []) {
        await insertFilterKeyword(trx, {
          id: this.deps.ids.next("filterKeyword"),
          filterId: id,
          keyword: keyword.keyword,
          wholeWord: keyword.wholeWord ?? true,
          createdAt: now,
        });
      }
    });
    await this.changed(accountId);
    return this.get(accountId, id);
  }

  async update(accountId: string, filterId: string, input: UpdateFilterInput): Promise<FilterRecord> {
    const filter = await this.get(accountId, filterId);
    const now = this.deps.clock.now().toISOString();
    const own = new Set(filter.keywords.map((k) => k.id));
    for (const attributes of input.keywords ?? []) {
      if (attributes.id !== undefined && !own.has(attributes.id)) throw new KithError("filter.not_found");
      if (attributes.id === undefined && !attributes.destroy && !attributes.keyword) {
        throw new KithError("request.validation_failed", {
          details: [{ field: "keywords_attributes.keyword", message: "A keyword is required" }],
        });
      }
    }
    await this.deps.storage.transaction(async (trx) => {
      await updateFilter(
        trx,
        filterId,
        {
          ...(input.title !== undefined && { title: input.title }),
          ...(input.context !== undefined && { context: unique(input.context) }),
          ...(input.action !== undefined && { action: input.action }),
          ...(input.expiresIn !== undefined && { expiresAt: this.expiresAt(input.expiresIn) }),
        },
        now,
      );
      for (const attributes of input.keywords ?? []) {
        if (attributes.id !== undefined && attributes.destroy) await deleteFilterKeyword(trx, attributes.id);
        else if (attributes.id !== undefined) {
          await updateFilterKeyword(trx, attributes.id, {
            ...(attributes.keyword !== undefined && { keyword: attributes.keyword }),
            ...(attributes.wholeWord !== undefined && { wholeWord: attributes.wholeWord }),
          });
        } else if (!attributes.destroy && attributes.keyword) {
          await insertFilterKeyword(trx, {
            id: this.deps.ids.next("filterKeyword"),
            filterId,
            keyword: attributes.keyword,
            wholeWord: attributes.wholeWord ?? true,
            createdAt: now,
          });
        }
      }
    });
    await this.changed(accountId);
    return this.get(accountId, filterId);
  }

  async remove(accountId: string, filterId: string): Promise<void> {
    await this.get(accountId, filterId);
    await this.deps.storage.transaction((trx) => deleteFilter(trx, filterId));
    await this.changed(accountId);
  }

  async addKeyword(accountId: string, filterId: string, input: KeywordInput): Promise<FilterKeywordRecord> {
    await this.get(accountId, filterId);
    const keyword = { id: this.deps.ids.next("filterKeyword"), filterId, keyword: input.keyword, wholeWord: input.wholeWord ?? true };
    await insertFilterKeyword(this.deps.storage.db, { ...keyword, createdAt: this.deps.clock.now().toISOString() });
    await this.changed(accountId);
    return keyword;
  }

  async getKeyword(accountId: string, keywordId: string): Promise<{ filter: FilterRecord; keyword: FilterKeywordRecord }> {
    const filterId = await findKeywordOwner(this.deps.storage.db, accountId, keywordId);
    const filter = filterId ? await findFilter(this.deps.storage.db, accountId, filterId) : null;
    const keyword = filter?.keywords.find((k) => k.id === keywordId);
    if (!filter || !keyword) throw new KithError("filter.not_found");
    return { filter, keyword };
  }

  async updateKeyword(
    accountId: string,
    keywordId: string,
    changes: { keyword?: string; wholeWord?: boolean },
  ): Promise<FilterKeywordRecord> {
    await this.getKeyword(accountId, keywordId);
    await updateFilterKeyword(this.deps.storage.db, keywordId, changes);
    await this.changed(accountId);
    return (await this.getKeyword(accountId, keywordId)).keyword;
  }

  async removeKeyword(accountId: string, keywordId: string): Promise<void> {
    await this.getKeyword(accountId, keywordId);
    await deleteFilterKeyword(this.deps.storage.db, keywordId);
    await this.changed(accountId);
  }

  /** Filters one status; a status already in the filter is refused with 422, as Mastodon does. */
  async addStatus(accountId: string, filterId: string, statusId: string): Promise<FilterStatusRecord> {
    await this.get(accountId, filterId);
    if (!(await statusExists(this.deps.storage.db, statusId))) throw new KithError("filter.status_not_found");
    const record = { id: this.deps.ids.next("filterStatus"), filterId, statusId };
    const added = await insertFilterStatus(this.deps.storage.db, { ...record, createdAt: this.deps.clock.now().toISOString() });
    if (!added) throw new KithError("filter.status_taken");
    await this.changed(accountId);
    return record;
  }

  async getStatus(accountId: string, filterStatusId: string): Promise<FilterStatusRecord> {
    const filterId = await findStatusFilterOwner(this.deps.storage.db, accountId, filterStatusId);
    const filter = filterId ? await findFilter(this.deps.storage.db, accountId, filterId) : null;
    const status = filter?.statuses.find((s) => s.id === filterStatusId);
    if (!status) throw new KithError("filter.not_found");
    return status;
  }

  async removeStatus(accountId: string, filterStatusId: string): Promise<void> {
    await this.getStatus(accountId, filterStatusId);
    await deleteFilterStatus(this.deps.storage.db, filterStatusId);
    await this.changed(accountId);
  }

  /** Every keyword of every filter, each with its filter, as the v1 API lists them. */
  async listV1(accountId: string): Promise<{ filter: FilterRecord; keyword: FilterKeywordRecord }[]> {
    return (await this.list(accountId)).flatMap((filter) => filter.keywords.map((keyword) => ({ filter, keyword })));
  }

  /** A v1 filter is one keyword in a filter of its own, titled by the phrase. */
  async createV1(accountId: string, input: V1FilterInput): Promise<{ filter: FilterRecord; keyword: FilterKeywordRecord }> {
    const filter = await this.create(accountId, {
      title: input.phrase,
      context: input.context,
      action: input.irreversible ? "hide" : "warn",
      expiresIn: input.expiresIn ?? null,
      keywords: [{ keyword: input.phrase, wholeWord: input.wholeWord ?? true }],
    });
    const keyword = filter.keywords[0];
    if (!keyword) throw new KithError("server.internal");
    return { filter, keyword };
  }

  /** Changes the keyword and, as Mastodon does, the context, expiry and action of the filter it belongs to. */
  async updateV1(
    accountId: string,
    keywordId: string,
    input: Partial<V1FilterInput>,
  ): Promise<{ filter: FilterRecord; keyword: FilterKeywordRecord }> {
    const { filter } = await this.getKeyword(accountId, keywordId);
    await this.update(accountId, filter.id, {
      ...(input.context !== undefined && { context: input.context }),
      ...(input.irreversible !== undefined && { action: input.irreversible ? "hide" : "warn" }),
      ...(input.expiresIn !== undefined && { expiresIn: input.expiresIn }),
      keywords: [
        {
          id: keywordId,
          ...(input.phrase !== undefined && { keyword: input.phrase }),
          ...(input.wholeWord !== undefined && { wholeWord: input.wholeWord }),
        },
      ],
    });
    return this.getKeyword(accountId, keywordId);
  }

  /** Removes the keyword, and its filter when nothing else is left in it. */
  async removeV1(accountId: string, keywordId: string): Promise<void> {
    const { filter } = await this.getKeyword(accountId, keywordId);
    if (filter.keywords.length === 1 && filter.statuses.length === 0) await this.remove(accountId, filter.id);
    else await this.removeKeyword(accountId, keywordId);
  }

  private expiresAt(expiresIn: number | null | undefined): string | null {
    if (expiresIn === undefined || expiresIn === null) return null;
    return new Date(this.deps.clock.now().getTime() + expiresIn * 1000).toISOString();
  }

  private async changed(accountId: string): Promise<void> {
    await this.#kept.changed(accountId);
    await this.deps.pubsub.publish(streamChannels.user(accountId), { event: "filters_changed" });
  }
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
