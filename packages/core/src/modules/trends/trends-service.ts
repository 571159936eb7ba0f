import type { PreviewCardEntity } from "../../mastodon/entities/preview-card.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { PreviewCardService } from "../preview-cards/index.js";
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

/** One day of a trend's history, as Mastodon writes it: the day's start in Unix seconds, and counts, all as strings. */
export interface TrendHistoryDay {
  readonly day: string;
  readonly uses: string;
  readonly accounts: string;
}

/** Mastodon's TrendsLink: a preview card with a week of daily history. */
export type TrendsLinkEntity = PreviewCardEntity & { readonly history: readonly TrendHistoryDay[] };

/** A trending link as moderators see it: Mastodon adds the card's id and `requires_review`. */
export type AdminTrendsLink = TrendsLinkEntity & { readonly id: string; readonly requires_review: boolean };

/** A use of something that trends (a hashtag, a link) by an account at a time. */
interface TrendUse {
  readonly key: string;
  readonly accountId: string;
  readonly createdAt: string;
}

interface LinkRanking extends Ranking {
  readonly history: ReadonlyMap<string, readonly TrendHistoryDay[]>;
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
 * Trends from this server's recent activity: hashtags and links (preview
 * cards) ranked by how many distinct accounts used them in public statuses
 * each day, statuses by the favourites and boosts they got, all decaying
 * with age.
 */
export class TrendsService {
  #tagRanking: Ranking | null = null;
  #statusRanking: Ranking | null = null;
  #linkRanking: LinkRanking | null = null;
  readonly #reviews: TrendReviewsStore;

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly tags: TagService,
    private readonly statusViews: StatusViews,
    private readonly filters: FilterService,
    private readonly cards: Pick<PreviewCardService, "sharesSince" | "cardsByIds">,
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

  async #links(): Promise<LinkRanking> {
    const now = this.deps.clock.now().getTime();
    if (!fresh(this.#linkRanking, now))
      this.#linkRanking = { ...(await this.#rankLinks(now)), reviews: await this.#reviews.states("link") };
    return this.#linkRanking;
  }

  /** The links shared by the most accounts lately, approved or not yet reviewed, with their history. */
  async trendingLinks(page: Page): Promise<TrendsLinkEntity[]> {
    const ranking = await this.#links();
    const ids = ranking.ids.filter((id) => ranking.reviews.get(id) !== "rejected").slice(page.offset, page.offset + page.limit);
    return (await this.#linkEntities(ids, ranking)).map(({ id: _id, requires_review: _review, ...link }) => link);
  }

  /** The trending links as moderators see them: every candidate, with its id and whether it awaits review. */
  async reviewLinks(page: Page): Promise<AdminTrendsLink[]> {
    const ranking = await this.#links();
    return this.#linkEntities(ranking.ids.slice(page.offset, page.offset + page.limit), ranking);
  }

  /** Approves or rejects a link's trending (by its card's id): a rejected one leaves the public trends at once. */
  async reviewLink(id: string, state: ReviewState, reviewerId: string): Promise<AdminTrendsLink> {
    const card = (await this.cards.cardsByIds([id])).get(id);
    if (!card) throw new KithError("request.not_found", { message: "Record not found" });
    await this.#review("link", id, state, reviewerId);
    const history = (await this.#links()).history.get(id) ?? emptyHistory(this.deps.clock.now().getTime());
    return { ...card, history, id, requires_review: false };
  }

  async #linkEntities(ids: readonly string[], ranking: LinkRanking): Promise<AdminTrendsLink[]> {
    const cards = await this.cards.cardsByIds(ids);
    return ids.flatMap((id) => {
      const card = cards.get(id);
      return card ? [{ ...card, history: ranking.history.get(id) ?? [], id, requires_review: !ranking.reviews.has(id) }] : [];
    });
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
    else if (kind === "link") this.#linkRanking = null;
    else this.#statusRanking = null;
  }

  /** Tag ids by score: distinct accounts per day, each day back counting less. */
  async #rankTags(now: number): Promise<string[]> {
    const uses = await trendableTagUses(this.deps.storage.db, lowestIdAt("status", dayStart(now) - (WINDOW_DAYS - 1) * DAY_MS));
    return rankByDailyAccounts(
      uses.map((use) => ({ key: use.tagId, accountId: use.accountId, createdAt: use.createdAt })),
      now,
    ).ids;
  }

  /** Card ids by score, as hashtags are ranked, with each card's week of history. */
  async #rankLinks(now: number): Promise<Omit<LinkRanking, "reviews">> {
    const shares = await this.cards.sharesSince(lowestIdAt("status", dayStart(now) - (WINDOW_DAYS - 1) * DAY_MS));
    const { ids, days } = rankByDailyAccounts(
      shares.map((share) => ({ key: share.cardId, accountId: share.accountId, createdAt: share.createdAt })),
      now,
    );
    const history = new Map(
      [...days].map(([id, byAge]) => [
        id,
        emptyHistory(now).map((day, age) => {
          const used = byAge.get(age);
          return used ? { ...day, uses: String(used.uses), accounts: String(used.accounts.size) } : day;
        }),
      ]),
    );
    return { computedAt: now, ids, history };
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

/**
 * Keys by score, the distinct accounts using each per day, each day back counting half the one after it; and, per key,
 * the uses and accounts of each day back (0: today).
 */
function rankByDailyAccounts(
  uses: readonly TrendUse[],
  now: number,
): { ids: string[]; days: Map<string, Map<number, { uses: number; accounts: Set<string> }>> } {
  const days = new Map<string, Map<number, { uses: number; accounts: Set<string> }>>();
  for (const use of uses) {
    const age = Math.floor((dayStart(now) - dayStart(Date.parse(use.createdAt))) / DAY_MS);
    const byAge = days.get(use.key) ?? new Map<number, { uses: number; accounts: Set<string> }>();
    const day = byAge.get(age) ?? { uses: 0, accounts: new Set<string>() };
    day.uses += 1;
    day.accounts.add(use.accountId);
    byAge.set(age, day);
    days.set(use.key, byAge);
  }
  const ids = [...days]
    .map(([key, byAge]) => ({ key, score: [...byAge].reduce((sum, [age, day]) => sum + day.accounts.size * DAILY_DECAY ** age, 0) }))
    .sort((a, b) => b.score - a.score || a.key.localeCompare(b.key))
    .map((ranked) => ranked.key);
  return { ids, days };
}

/** A week of days with nothing, today first, as Mastodon's history lists them. */
function emptyHistory(now: number): TrendHistoryDay[] {
  return Array.from({ length: WINDOW_DAYS }, (_, age) => ({
    day: String(Math.floor((dayStart(now) - age * DAY_MS) / 1000)),
    uses: "0",
    accounts: "0",
  }));
}
