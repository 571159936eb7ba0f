import type { PageRequest } from "../../domain/page.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { StatusViews } from "../statuses/index.js";
import { groupStatusIdsPage } from "./group-statuses-store.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { readIdPage } from "./id-page.js";
import type { ServiceDeps } from "../service-deps.js";

/** One page of a group's timeline: every id read (for the `Link` header) and the statuses the viewer may see. */
export interface GroupTimelinePage {
  readonly ids: readonly string[];
  readonly statuses: readonly StatusEntity[];
}

/**
 * A group's timeline: the statuses posted in it, newest first. Each is
 * rendered by the statuses' own views, under their one visibility rule (a
 * secret group's statuses are seen by its audience, its members); the group
 * itself must be visible to the viewer, else `group.not_found`.
 */
export class GroupTimeline {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly views: GroupViews,
    private readonly statusViews: StatusViews,
  ) {}

  async page(groupId: string, viewerId: string | null, page: PageRequest): Promise<GroupTimelinePage> {
    const db: GroupsDb = groupsDb(this.deps.storage.db);
    await this.views.visible(groupId, viewerId, db);
    const ids = await readIdPage(page, (bounds) => groupStatusIdsPage(db, groupId, bounds));
    return { ids, statuses: await this.statusViews.renderList(ids, viewerId) };
  }
}
