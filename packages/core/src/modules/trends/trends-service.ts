import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { FullTagEntity } from "../../mastodon/entities/tag.js";
import { lowestIdAt } from "../../domain/ids.js";
import { hiddenAuthorIds } from "../streaming/index.js";
import { type TagService, dayStart, findTagsByIds } from "../tags/index.js";
import type { ServiceDeps } from "../service-deps.js";
import type { FilterService, FilterableStatus } from "../filters/index.js";
import type { StatusViews } from "../statuses/index.js";
import { recentEngagement, trendableTagUses } from "./trends-store.js";

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
  readonly ids: readonly string[];
}

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

  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly tags: TagService,
    private readonly statusViews: StatusViews,
    private readonly filters: FilterService,
  ) {}

  async trendingTags(viewerId: string | null, page: Page): Promise<FullTagEntity[]> {
    const now = this.deps.clock.now().getTime();
    if (!fresh(this.#tagRanking, now)) this.#tagRanking = { computedAt: now, ids: await this.#rankTags(now) };
    const ids = this.#tagRanking.ids.slice(page.offset, page.offset + page.limit);
    const records = new Map((await findTagsByIds(this.deps.storage.db, ids)).map((tag) => [tag.id, tag]));
    return this.tags.render(
      ids.flatMap((id) => records.get(id) ?? []),
      viewerId,
    );
  }

  async trendingStatuses(viewerId: string | null, page: Page): Promise<StatusEntity[]> {
    const now = this.deps.clock.now().getTime();
    if (!fresh(this.#statusRanking, now)) this.#statusRanking = { computedAt: now, ids: await this.#rankStatuses(now) };
    let statuses = await this.statusViews.renderList(this.#statusRanking.ids, viewerId);
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
