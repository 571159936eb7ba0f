import type { PageRequest } from "../../domain/page.js";
import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { StatusViews } from "../statuses/index.js";
import { visibleChannel } from "./channel-service.js";
import { type StatusesOf, statusIdsPage } from "./group-statuses-store.js";
import { type GroupsDb, groupsDb } from "./group-tables-store.js";
import type { GroupViews } from "./group-views.js";
import { readIdPage } from "./id-page.js";
import type { ServiceDeps } from "../service-deps.js";

export type { StatusesOf };

/** One page of a group's timeline: every id read (for the `Link` header) and the statuses the viewer may see. */
export interface GroupTimelinePage {
  readonly ids: readonly string[];
  readonly statuses: readonly StatusEntity[];
}

/**
 * A group's timeline, or one of its channels': the statuses posted in it,
 * newest first. Each is rendered by the statuses' own views, under their
 * one visibility rule (a secret group's statuses are seen by its audience,
 * its members); the group itself must be visible to the viewer, else
 * `group.not_found` (`group.channel_not_found` for a channel's).
 */
export class GroupTimeline {
  constructor(
    private readonly deps: Pick<ServiceDeps, "storage">,
    private readonly views: GroupViews,
    private readonly statusViews: StatusViews,
  ) {}

  async page(of: StatusesOf, viewerId: string | null, page: PageRequest): Promise<GroupTimelinePage> {
    const db: GroupsDb = groupsDb(this.deps.storage.db);
    if ("group" in of) await this.views.visible(of.group, viewerId, db);
    else await visibleChannel(db, this.views, of.channel, viewerId);
    const ids = await readIdPage(page, (bounds) => statusIdsPage(db, of, bounds));
    return { ids, statuses: await this.statusViews.renderList(ids, viewerId) };
  }
}
