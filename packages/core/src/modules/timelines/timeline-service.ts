import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { JsonTexts } from "../../platform/http/json-text.js";
import type { PageRequest } from "../../domain/page.js";
import { loadHomeFeedPage } from "./home-feed-store.js";
import {
  type PublicTimelineQuery,
  type TagTimelineQuery,
  loadPublicTimelinePage,
  loadTagTimelinePage,
  pageListTimeline,
} from "./timelines-store.js";
import { type VisiblePage, loadVisiblePosts } from "../statuses/visible-statuses-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { FilterService } from "../filters/filter-service.js";
import type { ListService } from "../lists/list-service.js";
import type { StatusViews } from "../statuses/status-views.js";
import { renderFiltered } from "./apply-filters.js";
import type { FilterContext } from "../../domain/filters.js";

export type { PublicTimelineQuery, TagTimelineQuery };

/** A rendered page and the ids it was read from (the `Link` header pages by these, not by what survived rendering). */
export interface TimelinePage {
  readonly statuses: StatusEntity[];
  readonly pageIds: readonly string[];
  /** The JSON texts of the statuses, for the answer to be assembled from (json-text.ts). */
  readonly texts: JsonTexts;
}

/** Tag names are stored lower-cased and NFKC-normalised; queries are normalised the same way. */
export function normalizeTag(name: string): string {
  return name.replace(/^#/, "").normalize("NFKC").toLowerCase();
}

/**
 * Reads timelines: the home, public and hashtag pages each in one statement
 * with what rendering their statuses needs first (visible-statuses.ts), a list's
 * ids and then its statuses; each rendered alike, for the viewer, beside the
 * viewer's filters of the timeline's context.
 */
export class TimelineService {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage" | "clock">,
    private readonly statusViews: StatusViews,
    private readonly filters: FilterService,
    private readonly lists: ListService,
  ) {}

  async home(viewerId: string, page: PageRequest): Promise<TimelinePage> {
    return this.#renderPage(viewerId, "home", () => loadHomeFeedPage(this.deps.storage.db, viewerId, page));
  }

  async public(viewerId: string | null, query: PublicTimelineQuery, page: PageRequest): Promise<TimelinePage> {
    return this.#renderPage(viewerId, "public", () => loadPublicTimelinePage(this.deps.storage.db, this.#viewer(viewerId), query, page));
  }

  async tag(viewerId: string | null, query: TagTimelineQuery, page: PageRequest): Promise<TimelinePage> {
    const normalized: TagTimelineQuery = {
      ...query,
      tag: normalizeTag(query.tag),
      any: (query.any ?? []).map(normalizeTag),
      all: (query.all ?? []).map(normalizeTag),
      none: (query.none ?? []).map(normalizeTag),
    };
    return this.#renderPage(viewerId, "public", () => loadTagTimelinePage(this.deps.storage.db, this.#viewer(viewerId), normalized, page));
  }

  /** A list's timeline; 404 for a list that is not the viewer's. */
  async list(viewerId: string, listId: string, page: PageRequest): Promise<TimelinePage> {
    const list = await this.lists.get(viewerId, listId);
    const db = this.deps.storage.db;
    return this.#renderPage(viewerId, "home", async () => {
      const ids = await pageListTimeline(
        db,
        { id: list.id, ownerId: viewerId, repliesPolicy: list.repliesPolicy },
        this.deps.clock.now().toISOString(),
        page,
      );
      return { ids, posts: await loadVisiblePosts(db, ids, viewerId) };
    });
  }

  #viewer(viewerId: string | null) {
    return { accountId: viewerId, now: this.deps.clock.now().toISOString() };
  }

  /** A page read by `read` (with its statuses' versions and the viewer's marks), rendered beside the viewer's filters. */
  async #renderPage(viewerId: string | null, context: FilterContext, read: () => Promise<VisiblePage>): Promise<TimelinePage> {
    const texts: JsonTexts = new Map();
    let pageIds: readonly string[] = [];
    const render = async (): Promise<StatusEntity[]> => {
      const page = await read();
      pageIds = page.ids;
      return this.statusViews.renderPage(page, viewerId, { texts });
    };
    const statuses = viewerId === null ? await render() : await renderFiltered(this.filters, viewerId, context, render);
    return { statuses, pageIds, texts };
  }
}
