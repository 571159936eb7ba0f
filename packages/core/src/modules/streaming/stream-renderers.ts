import { isKithError } from "../../domain/errors.js";
import { hiddenAuthorsOfViewers, ownsList, viewersWithMarks } from "./stream-audience-store.js";
import type { ServiceDeps } from "../service-deps.js";
import type { FilterService } from "../filters/filter-service.js";
import type { StatusViews } from "../statuses/status-views.js";
import type { StreamRenderers } from "./stream-connection.js";

/** Finds a record of its owner by id, and renders records for their owner: notifications and conversations both work so. */
interface OwnedViews<R> {
  readonly find: { get(ownerId: string, id: string): Promise<R> };
  readonly views: { render(records: readonly R[], viewerId: string): Promise<readonly object[]> };
}

async function renderOwned<R>(owned: OwnedViews<R>, viewerId: string, id: string): Promise<object | null> {
  try {
    const record = await owned.find.get(viewerId, id);
    return (await owned.views.render([record], viewerId))[0] ?? null;
  } catch (error) {
    // Gone (dismissed, deleted) between publishing and rendering: nothing to send.
    if (isKithError(error)) return null;
    throw error;
  }
}

/** The renderers streams use, over the services that render the same entities for the REST API. */
export function streamRenderers<N, C>(
  deps: Pick<ServiceDeps, "storage" | "clock">,
  parts: {
    readonly statusViews: StatusViews;
    readonly filters: FilterService;
    readonly notifications: OwnedViews<N>;
    readonly conversations: OwnedViews<C>;
  },
): StreamRenderers {
  return {
    statuses: (ids, viewerId) => parts.statusViews.render(ids, viewerId),
    notification: (viewerId, id) => renderOwned(parts.notifications, viewerId, id),
    conversation: (viewerId, id) => renderOwned(parts.conversations, viewerId, id),
    filters: (viewerId, context) => parts.filters.forViewer(viewerId, context),
    hiddenAuthors: (viewerIds, authorIds) => hiddenAuthorsOfViewers(deps.storage.db, viewerIds, authorIds, deps.clock.now().toISOString()),
    ownsList: (viewerId, listId) => ownsList(deps.storage.db, viewerId, listId),
    viewersWithMarks: (statusId, viewerIds) => viewersWithMarks(deps.storage.db, statusId, viewerIds),
    quoteDecisions: (statusId, viewerIds) => parts.statusViews.quoteDecisions(statusId, viewerIds),
  };
}
