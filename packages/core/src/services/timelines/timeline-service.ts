import type { StatusEntity } from "../../api/entities/status.js";
import type { JsonTexts } from "../../api/json-text.js";
import type { PageRequest } from "../../domain/page.js";
import { loadHomeFeedPage } from "../../storage/repositories/home-feed.js";
import {
  type PublicTimelineQuery,
  type TagTimelineQuery,
  pageListTimeline,
  pagePublicTimeline,
  pageTagTimeline,
} from "../../storage/repositories/timelines.js";
import type { ServiceDeps } from "../deps.js";
import type { FilterService } from "../filters/filter-service.js";
import type { ListService } from "../lists/list-service.js";
import type { StatusViews } from "../statuses/status-views.js";
import { renderFiltered } from "./apply-filters.js";
import type { FilterContext } from "../../storage/repositories/filters.js";

export type { PublicTimelineQuery, TagTimelineQuery };

/** A rendered page and the ids it was read from (the `Link` header pages by these, not by what survived rendering). */
export interface TimelinePage {
  readonly statuses: StatusEntity[];
  readonly pageIds: readonly string[];
  /** The JSON texts of the posts, for the answer to be assembled from (json-text.ts). */
  readonly texts: JsonTexts;
}

/** Tag names are stored lower-cased and NFKC-normalised; queries are normalised the same way. */
export function normalizeTag(name: string): string {
  return name.replace(/^#/, "").normalize("NFKC").toLowerCase();
}

/**
 * Reads timelines: ids from one query each, then one batch render for the
 * viewer (visibility checked again there) beside the viewer's filters of the
 * timeline's context.
 */
export class TimelineService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly statusViews: StatusViews,
    private readonly filters: FilterService,
    private readonly lists: ListService,
  ) {}

  /** The page is read with its posts' versions and the viewer's marks, in one statement beside the filters. */
  async home(viewerId: string, page: PageRequest): Promise<TimelinePage> {
    const texts: JsonTexts = new Map();
    let pageIds: readonly string[] = [];
    const statuses = await renderFiltered(this.filters, viewerId, "home", async () => {
      const read = await loadHomeFeedPage(this.deps.storage.db, viewerId, page);
      pageIds = read.ids;
      return this.statusViews.renderPage(read, viewerId, { texts });
    });
    return { statuses, pageIds, texts };
  }

  async public(viewerId: string | null, query: PublicTimelineQuery, page: PageRequest): Promise<TimelinePage> {
    const ids = await pagePublicTimeline(this.deps.storage.db, this.#viewer(viewerId), query, page);
    return this.#render(ids, viewerId, "public");
  }

  async tag(viewerId: string | null, query: TagTimelineQuery, page: PageRequest): Promise<TimelinePage> {
    const normalized: TagTimelineQuery = {
      ...query,
      tag: normalizeTag(query.tag),
      any: (query.any ?? []).map(normalizeTag),
      all: (query.all ?? []).map(normalizeTag),
      none: (query.none ?? []).map(normalizeTag),
    };
    const ids = await pageTagTimeline(this.deps.storage.db, this.#viewer(viewerId), normalized, page);
    return this.#render(ids, viewerId, "public");
  }

  /** A list's timeline; 404 for a list that is not the viewer's. */
  async list(viewerId: string, listId: string, page: PageRequest): Promise<TimelinePage> {
    const list = await this.lists.get(viewerId, listId);
    const ids = await pageListTimeline(
      this.deps.storage.db,
      { id: list.id, ownerId: viewerId, repliesPolicy: list.repliesPolicy },
      this.deps.clock.now().toISOString(),
      page,
    );
    return this.#render(ids, viewerId, "home");
  }

  #viewer(viewerId: string | null) {
    return { accountId: viewerId, now: this.deps.clock.now().toISOString() };
  }

  async #render(ids: readonly string[], viewerId: string | null, context: FilterContext): Promise<TimelinePage> {
    const texts: JsonTexts = new Map();
    if (viewerId === null || ids.length === 0)
      return { statuses: await this.statusViews.renderList(ids, viewerId, { texts }), pageIds: ids, texts };
    const statuses = await renderFiltered(this.filters, viewerId, context, () => this.statusViews.renderList(ids, viewerId, { texts }));
    return { statuses, pageIds: ids, texts };
  }
}
