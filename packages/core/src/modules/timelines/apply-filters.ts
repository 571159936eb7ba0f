import type { StatusEntity } from "../../mastodon/entities/status.js";
import type { FilterContext } from "../../domain/filters.js";
import type { FilterService } from "../filters/filter-service.js";
import type { FilterMatcher, FilterableStatus } from "../filters/filter-matcher.js";

/**
 * Applies a viewer's filters to rendered statuses. The Status schema types
 * `filtered` loosely (unknown[]); the matcher writes exactly Mastodon's
 * FilterResult there and returns the same objects, so the casts only bridge
 * the two declarations.
 */
export function applyFilterMatcher(matcher: FilterMatcher, statuses: StatusEntity[]): StatusEntity[] {
  if (matcher.empty || statuses.length === 0) return statuses;
  return matcher.apply(statuses as unknown as FilterableStatus[]) as unknown as StatusEntity[];
}

/**
 * Statuses for a signed-in viewer (what `render` returns), with the viewer's filters of `context` applied. The filters do
 * not depend on the statuses, so they are read beside them: on PostgreSQL one round trip fewer than one after the other.
 * Where `render` put each status's JSON text in a `texts` map, a post the filters changed is a new object, without one.
 */
export async function renderFiltered(
  filters: FilterService,
  viewerId: string,
  context: FilterContext,
  render: () => Promise<StatusEntity[]>,
): Promise<StatusEntity[]> {
  const [statuses, matcher] = await Promise.all([render(), filters.forViewer(viewerId, context)]);
  return applyFilterMatcher(matcher, statuses);
}
