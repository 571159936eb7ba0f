import type { StatusEntity } from "../../api/entities/status.js";
import type { FilterMatcher, FilterableStatus } from "../filters/filter-matcher.js";

/**
 * Applies a viewer's filters to rendered posts. The Status schema types
 * `filtered` loosely (unknown[]); the matcher writes exactly Mastodon's
 * FilterResult there and returns the same objects, so the casts only bridge
 * the two declarations.
 */
export function applyFilterMatcher(matcher: FilterMatcher, statuses: StatusEntity[]): StatusEntity[] {
  if (matcher.empty || statuses.length === 0) return statuses;
  return matcher.apply(statuses as unknown as FilterableStatus[]) as unknown as StatusEntity[];
}
