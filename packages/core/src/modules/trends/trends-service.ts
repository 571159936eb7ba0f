import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { FullTagEntity } from "../../mastodon/entities/tag.js";
import { lowestIdAt } from "../../domain/ids.js";
import { hiddenAuthorIds } from "../streaming/index.js";
import { type TagService, dayStart, findTagsByIds } from "../tags/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { FilterService, FilterableStatus } from "../filters/index.js";
import type { StatusViews } from "../statuses/index.js";
import { type ReviewState, type TrendKind, TrendReviewsStore, recentEngagement, trendableTagUses } from "./trends-store.js";
import { KithError } from "../../domain/errors.js";
import type { TagRecord } from "../tags/index.js";

const DAY_MS = 86_400_000;
/** How far back activity counts. */
const WINDOW_DAYS = 7;
/** Each day back counts half as much as the one after it: what is rising now ranks above what was big last week. */
const DAILY_DECAY = 0.5;
/**
 * Rankings are computed at most this often per process: clients load trends
 * on every start, and a ranking scans a week of activity. What each viewer
 * sees (visibility, blocks, mutes, filters) is still decided per request.
 */
export const RANKING_TTL_MS = 5 * 60_000;

interface Ranking {
  readonly computedAt: number;
  /** Every candidate, rejected ones included: what moderators review. */
  readonly ids: readonly string[];
  readonly reviews: ReadonlyMap<string, ReviewState>;
}

/** Mastodon's Admin::Tag: a hashtag with its review state. */
export interface AdminTagEntity extends FullTagEntity {
  readonly trendable: boolean;
  readonly usable: boolean;
  readonly listable: boolean;
  readonly requires_review: boolean;
}

/** A trending status as moderators see it: Mastodon adds `requires_review`. */
export type AdminTrendStatus = StatusEntity & { readonly requires_review: boolean };

function fresh(ranking: Ranking | null, now: number): ranking is Ranking {
  return ranking !== null && now >= ranking.computedAt && now - ranking.computedAt < RANKING_TTL_MS;
}

export interface Page {
  readonly limit: number;
  readonly offset: number;
}

/**
 * Trends from this server's recent activity: hashtags ranked by how many
 * distinct accounts used them in public statuses each day, statuses by the
 * favourites and boosts they got, both decaying with age. Links are not
 * tracked (there are no preview cards yet), so their trends are empty.
 */
export class TrendsService {
  #tagRanking: Ranking | null = null;
  #statusRanking: Ranking | null = null;
  readonly #reviews: TrendReviewsStore;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly tags: TagService,
    private readonly statusViews: StatusViews,
    private readonly filters: FilterService,
  ) {
    this.#reviews = new TrendReviewsStore(deps.storage.db);
  }

  async #tags(): Promise<Ranking> {
    const now = this.deps.clock.now().getTime();
    if (!fresh(this.#tagRanking, now))
      this.#tagRanking = { computedAt: now, ids: await this.#rankTags(now), reviews: await this.#reviews.states("tag") };
    return this.#tagRanking;
  }

  async #statuses(): Promise<Ranking> {
    const now = this.deps.clock.now().getTime();
    if (!fresh(this.#statusRanking, now))
      this.#statusRanking = { computedAt: now, ids: await this.#rankStatuses(now), reviews: await this.#reviews.states("status") };
    return this.#statusRanking;
  }

  async trendingTags(viewerId: string | null, page: Page): Promise<FullTagEntity[]> {
    const ranking = await this.#tags();
    const ids = ranking.ids.filter((id) => ranking.reviews.get(id) !== "rejected").slice(page.offset, page.offset + page.limit);
    const records = new Map((await findTagsByIds(this.deps.storage.db, ids)).map((tag) => [tag.id, tag]));
    return this.tags.render(
      ids.flatMap((id) => records.get(id) ?? []),
      viewerId,
    );
  }

  async trendingStatuses(viewerId: string | null, page: Page): Promise<StatusEntity[]> {
    const now = this.deps.clock.now().getTime();
    const ranking = await this.#statuses();
    let statuses = await this.statusViews.renderList(
      ranking.ids.filter((id) => ranking.reviews.get(id) !== "rejected"),
      viewerId,
    );
    if (viewerId !== null) {
      const hidden = await hiddenAuthorIds(
        this.deps.storage.db,
        viewerId,
        statuses.map((s) => s.account.id),
        new Date(now).toISOString(),
      );
      const matcher = await this.filters.forViewer(viewerId, "public");
      statuses = matcher.apply(
        statuses.filter((s) => !hidden.has(s.account.id)) as unknown as FilterableStatus[],
      ) as unknown as StatusEntity[];
    }
    return statuses.slice(page.offset, page.offset + page.limit);
  }

  // --- Review ------------------------------------------------------------------

  /** The trending hashtags as moderators see them: every candidate, with its review state. */
  async reviewTags(page: Page): Promise<AdminTagEntity[]> {
    const ranking = await this.#tags();
    return this.#adminTags(ranking.ids.slice(page.offset, page.offset + page.limit), ranking.reviews);
  }

  async #adminTags(ids: readonly string[], reviews: ReadonlyMap<string, ReviewState>): Promise<AdminTagEntity[]> {
    const records = new Map((await findTagsByIds(this.deps.storage.db, ids)).map((tag) => [tag.id, tag]));
    const found = ids.flatMap((id) => records.get(id) ?? []);
    const rendered = await this.tags.render(found, null);
    return rendered.map((entity, index) => {
      const record = found[index] as TagRecord;
      const review = reviews.get(record.id);
      return {
        ...entity,
        trendable: record.trendable && review !== "rejected",
        usable: record.usable,
        listable: true,
        requires_review: review === undefined,
      };
    });
  }

  /** The trending statuses as moderators see them: every candidate, with whether it awaits review. */
  async reviewStatuses(viewerId: string, page: Page): Promise<AdminTrendStatus[]> {
    const ranking = await this.#statuses();
    const statuses = await this.statusViews.renderList(ranking.ids.slice(page.offset, page.offset + page.limit), viewerId);
    return statuses.map((status) => ({ ...status, requires_review: !ranking.reviews.has(status.id) }));
  }

  /** Approves or rejects a hashtag's trending: a rejected one leaves the public trends at once. */
  async reviewTag(id: string, state: ReviewState, reviewerId: string): Promise<AdminTagEntity> {
    const [record] = await findTagsByIds(this.deps.storage.db, [id]);
    if (!record) throw new KithError("tag.not_found");
    await this.#review("tag", id, state, reviewerId);
    return (await this.#adminTags([id], new Map([[id, state]])))[0] as AdminTagEntity;
  }

  async reviewStatus(id: string, state: ReviewState, reviewerId: string): Promise<AdminTrendStatus> {
    const status = await this.statusViews.renderOne(id, reviewerId);
    if (!status) throw new KithError("request.not_found", { message: "Record not found" });
    await this.#review("status", id, state, reviewerId);
    return { ...status, requires_review: false };
  }

  async #review(kind: TrendKind, id: string, state: ReviewState, reviewerId: string): Promise<void> {
    await this.#reviews.set({ kind, target_id: id, state, reviewed_by_id: reviewerId, reviewed_at: this.deps.clock.now().toISOString() });
    // The review is seen at once, in this process: its ranking is read again on the next request.
    if (kind === "tag") this.#tagRanking = null;
    else this.#statusRanking = null;
  }

  /** Tag ids by score: distinct accounts per day, each day back counting less. */
  async #rankTags(now: number): Promise<string[]> {
    const uses = await trendableTagUses(this.deps.storage.db, lowestIdAt("status", dayStart(now) - (WINDOW_DAYS - 1) * DAY_MS));
    const accountsByTagDay = new Map<string, Map<number, Set<string>>>();
    for (const use of uses) {
      const age = Math.floor((dayStart(now) - dayStart(Date.parse(use.createdAt))) / DAY_MS);
      const days = accountsByTagDay.get(use.tagId) ?? new Map<number, Set<string>>();
      days.set(age, (days.get(age) ?? new Set()).add(use.accountId));
      accountsByTagDay.set(use.tagId, days);
    }
    return [...accountsByTagDay]
      .map(([tagId, days]) => ({ tagId, score: [...days].reduce((sum, [age, accounts]) => sum + accounts.size * DAILY_DECAY ** age, 0) }))
      .sort((a, b) => b.score - a.score || a.tagId.localeCompare(b.tagId))
      .map((r) => r.tagId);
  }

  /** Status ids by score: favourites and (doubly) boosts, decaying with the status's age. */
  async #rankStatuses(now: number): Promise<string[]> {
    const since = dayStart(now) - (WINDOW_DAYS - 1) * DAY_MS;
    const engagement = await recentEngagement(this.deps.storage.db, {
      statusId: lowestIdAt("status", since),
      favouriteId: lowestIdAt("favourite", since),
    });
    // Rendered as a guest: only public statuses trend, and their age is what matters here.
    const rendered = await this.statusViews.render(
      engagement.map((e) => e.statusId),
      null,
    );
    return engagement
      .flatMap((e) => {
        const status = rendered.get(e.statusId);
        if (!status) return [];
        const ageDays = Math.max(0, (now - Date.parse(status.created_at)) / DAY_MS);
        return [{ id: status.id, score: (e.favourites + 2 * e.reblogs) * DAILY_DECAY ** ageDays }];
      })
      .sort((a, b) => b.score - a.score || b.id.localeCompare(a.id))
      .map((s) => s.id);
  }
}
